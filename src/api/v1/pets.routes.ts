// The pet store operations of spec section 4.1–4.3, mounted under /v1.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ApiRoutesOptions } from '../api.context.js'
import { Type } from 'typebox'
import { BODY_LIMIT_BYTES } from '../platform/base-app.js'
import { ApiError } from '../contract/errors.js'
import { refuseEncodedBody, requireJsonContentType, sendJsonText } from '../platform/json-body.js'
import { linkNextPage, pageStart } from '../contract/paging.js'
import {
  errorResponse,
  jsonBodyRefusals,
  internalResponse,
  jsonResponse,
  NoQuery,
  ref,
  tooManyRequests,
  unauthorizedResponse,
} from '../contract/schemas.js'
import { createOnce, IdempotencyKeyHeader, idempotencyResponses, replayedHeader } from './idempotent-create.js'
import { ListPetsQuery, NewPetSchema, PetIdParams, PetSchema, PetsSchema } from './pets.schemas.js'

const header = (description: string) => Type.String({ description })
const unauthorized = unauthorizedResponse()
const internal = internalResponse()
const PETS_LIST = { path: '/v1/pets' }

export const petsRoutes: FastifyPluginAsyncTypebox<ApiRoutesOptions> = async (app, { api }) => {
  const { pets, config } = api

  app.get(
    '/pets',
    {
      config: { scope: 'pets:read' },
      schema: {
        operationId: 'listPets',
        tags: ['pets'],
        summary: 'List animals',
        description:
          'Pets of your account ordered by id ascending, optionally filtered by status. When more results exist the ' +
          'response carries `Link: <…>; rel="next"`; follow it (it keeps `limit` and `status`) to get the next page.',
        querystring: ListPetsQuery,
        response: {
          200: jsonResponse('A page of pets (a bare array); `Link: <…>; rel="next"` when more exist.', ref(PetsSchema)),
          400: errorResponse(
            'A query parameter is invalid, repeated or unknown, or the cursor was not issued by us.',
            {},
            ['invalid_parameter', 'invalid_cursor', 'bad_request'],
          ),
          401: unauthorized,
          429: tooManyRequests(),
          500: internal,
        },
      },
    },
    async (request, reply) => {
      const start = pageStart(api.cursors, request, PETS_LIST, request.query)
      const page = await pets.page(start)
      linkNextPage(api, request, reply, PETS_LIST, start, page)
      return sendJsonText(reply, page.json)
    },
  )

  app.post(
    '/pets',
    {
      preParsing: [refuseEncodedBody, requireJsonContentType],
      config: { scope: 'pets:write' },
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
          ...jsonBodyRefusals(
            'The body is not JSON, not an object, misses a required field, or has an unknown field or invalid value.',
            BODY_LIMIT_BYTES,
          ),
          401: unauthorized,
          ...idempotencyResponses,
          429: tooManyRequests(),
          500: internal,
        },
      },
    },
    async (request, reply) =>
      createOnce(api.idempotency, request, reply, async (trx) => {
        const pet = await pets.create({ accountId: request.auth!.accountId, pet: request.body }, trx)
        return { status: 201, body: pet, location: `/v1/pets/${pet.id}` }
      }),
  )

  const sunsetNote = `Removed on ${config.getPetSunset.toISOString()}: from then on it answers 410.`
  app.get(
    '/pets/:petId',
    {
      config: {
        scope: 'pets:read',
        deprecation: {
          deprecatedAt: config.getPetDeprecatedAt,
          sunset: config.getPetSunset,
          successor: '/v1/pets',
          docs: '/docs#/pets/getPet',
        },
      },
      schema: {
        operationId: 'getPet',
        tags: ['pets'],
        summary: 'Get an animal (deprecated)',
        description:
          `Deprecated: use \`GET /pets\` with the \`status\` filter. ${sunsetNote} Every response carries ` +
          `\`Deprecation\`, \`Sunset\` and \`Link\` headers.`,
        deprecated: true,
        querystring: NoQuery,
        params: PetIdParams,
        response: {
          // Deprecation, Sunset and Link are declared on every response of a deprecated operation
          // (openapi-contract.ts).
          200: jsonResponse('Animal found.', ref(PetSchema)),
          400: errorResponse('`petId` is not a 64-bit integer, or a query parameter was sent.', {}, [
            'invalid_parameter',
            'bad_request',
          ]),
          401: unauthorized,
          404: errorResponse('The requested resource could not be found.', {}, ['pet_not_found']),
          410: errorResponse(sunsetNote, {}, ['operation_sunset']),
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
