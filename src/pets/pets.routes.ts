// The pet store operations of spec section 4.1–4.3, mounted under /v1.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ApiError } from '../http/errors.js'
import { requireJsonContentType, sendJsonText } from '../http/json-body.js'
import { publicOrigin } from '../http/origin.js'
import { errorResponse, internalResponse, jsonResponse, NoQuery, ref, tooManyRequests, unauthorizedResponse } from '../http/schemas.js'
import { createOnce, IdempotencyKeyHeader, idempotencyResponses, replayedHeader } from '../idempotency/idempotent-create.js'
import { ListPetsQuery, NewPetSchema, PetIdParams, PetSchema, PetsSchema } from './pets.schemas.js'

const header = (description: string) => Type.String({ description })
const unauthorized = unauthorizedResponse()
const internal = internalResponse()

export const petsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { pets, cursors, config } = app

  app.get(
    '/pets',
    {
      schema: {
        operationId: 'listPets',
        tags: ['pets'],
        summary: 'List animals',
        description:
          'Pets of your account ordered by id ascending, optionally filtered by status. When more results exist the response carries `Link: <…>; rel="next"`; follow it (it keeps `limit` and `status`) to get the next page.',
        querystring: ListPetsQuery,
        response: {
          200: jsonResponse('A page of pets (a bare array).', ref(PetsSchema), {
            Link: header('`<URL of the next page>; rel="next"` (RFC 8288), present only when more results exist.'),
          }),
          400: errorResponse('A query parameter is invalid, repeated or unknown, or the cursor was not issued by us.'),
          401: unauthorized,
          429: tooManyRequests(),
          500: internal,
        },
      },
    },
    async (request, reply) => {
      const accountId = request.auth!.accountId
      const { status, cursor } = request.query
      const limit = request.query.limit ?? 20
      const afterId = cursor === undefined ? undefined : cursors.decode(accountId, cursor, status).lastId
      const page = await pets.page({ accountId, status, afterId, limit })
      if (page.hasMore && page.lastId !== undefined) {
        // Nothing here needs percent-encoding: an integer, a status name and a base64url cursor.
        const filter = status ? `&status=${status}` : ''
        const cursor = cursors.encode(accountId, { lastId: page.lastId, status })
        reply.header('link', `<${publicOrigin(request, config.publicUrl)}/v1/pets?limit=${limit}${filter}&cursor=${cursor}>; rel="next"`)
      }
      return sendJsonText(reply, page.json)
    },
  )

  app.post(
    '/pets',
    {
      preParsing: requireJsonContentType,
      schema: {
        operationId: 'createPet',
        tags: ['pets'],
        summary: 'Add an animal',
        description: 'Adds a pet to your account. The pet is committed to the database before the 201 is sent.',
        headers: IdempotencyKeyHeader,
        querystring: NoQuery,
        body: ref(NewPetSchema),
        response: {
          201: jsonResponse('Animal added; `id` is assigned by the service.', ref(PetSchema), {
            Location: header('`/v1/pets/{id}` of the new pet.'),
            'Idempotent-Replayed': replayedHeader,
          }),
          400: errorResponse('The body is not JSON, not an object, misses a required field, or has an unknown field or invalid value.'),
          401: unauthorized,
          ...idempotencyResponses,
          413: errorResponse('The body is larger than 16 KiB.'),
          429: tooManyRequests(),
          500: internal,
        },
      },
    },
    async (request, reply) =>
      createOnce(request, reply, async (trx) => {
        const pet = await pets.create({ accountId: request.auth!.accountId, pet: request.body }, trx)
        return { status: 201, body: pet, location: `/v1/pets/${pet.id}` }
      }),
  )

  const sunsetNote = `Removed on ${config.getPetSunset.toISOString()}: from then on it answers 410.`
  app.get(
    '/pets/:petId',
    {
      config: {
        deprecation: { deprecatedAt: config.getPetDeprecatedAt, sunset: config.getPetSunset, successor: '/v1/pets', docs: '/docs#/pets/getPet' },
      },
      schema: {
        operationId: 'getPet',
        tags: ['pets'],
        summary: 'Get an animal (deprecated)',
        description: `Deprecated: use \`GET /pets\` with the \`status\` filter. ${sunsetNote} Every response carries \`Deprecation\`, \`Sunset\` and \`Link\` headers.`,
        deprecated: true,
        querystring: NoQuery,
        params: PetIdParams,
        response: {
          200: jsonResponse('Animal found.', ref(PetSchema), {
            Deprecation: header('RFC 9745: `@<epoch seconds>` of the deprecation.'),
            Sunset: header('RFC 8594: HTTP-date of the removal.'),
            Link: header('`rel="successor-version"` (the replacement) and `rel="deprecation"` (documentation).'),
          }),
          400: errorResponse('`petId` is not a positive 64-bit integer.'),
          401: unauthorized,
          404: errorResponse('The requested resource could not be found.'),
          410: errorResponse(sunsetNote),
          429: tooManyRequests(),
          500: internal,
        },
      },
    },
    async (request) => {
      const pet = await pets.get({ accountId: request.auth!.accountId, id: request.params.petId })
      if (!pet) throw new ApiError('pet_not_found', `No pet with id ${request.params.petId} exists in your account.`)
      return pet
    },
  )
}
