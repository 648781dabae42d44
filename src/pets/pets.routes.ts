// The pet store operations of spec section 4.1–4.3, mounted under /v1.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ApiError } from '../http/errors.js'
import { requireJsonContentType } from '../http/json-body.js'
import { publicOrigin } from '../http/origin.js'
import { errorResponse, jsonResponse, NoQuery, ref, tooManyRequests } from '../http/schemas.js'
import { fingerprintOf, parseIdempotencyKey } from '../idempotency/idempotency-key.js'
import { ListPetsQuery, NewPetSchema, PetIdParams, PetSchema, PetsSchema, type Pet } from './pets.schemas.js'

const header = (description: string) => Type.String({ description })
const unauthorized = errorResponse('Missing or invalid API key (see `code`); a `WWW-Authenticate: Bearer` challenge is sent.', {
  'WWW-Authenticate': header('Bearer challenge (RFC 6750).'),
})
const internal = errorResponse('Unexpected failure; nothing internal is shown.')

export const petsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { pets, cursors, config, idempotency } = app

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
      const page = await pets.list({ accountId, status, afterId, limit })
      const last = page.pets.at(-1)
      if (page.hasMore && last) {
        const next = new URLSearchParams({ limit: String(limit) })
        if (status) next.set('status', status)
        next.set('cursor', cursors.encode(accountId, { lastId: last.id, status }))
        reply.header('link', `<${publicOrigin(request, config.publicUrl)}/v1/pets?${next}>; rel="next"`)
      }
      return page.pets
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
        headers: Type.Object({
          'idempotency-key': Type.Optional(
            Type.String({
              description:
                'Makes the request safe to retry (draft-ietf-httpapi-idempotency-key-header): 1–255 printable characters, best a quoted UUID. Same key and body within 24 h: the first response is replayed with `Idempotent-Replayed: true`.',
            }),
          ),
        }),
        querystring: NoQuery,
        body: ref(NewPetSchema),
        response: {
          201: jsonResponse('Animal added; `id` is assigned by the service.', ref(PetSchema), {
            Location: header('`/v1/pets/{id}` of the new pet.'),
            'Idempotent-Replayed': header('`true` when this is the stored response of an earlier request with the same `Idempotency-Key`.'),
          }),
          400: errorResponse('The body is not JSON, not an object, misses a required field, or has an unknown field or invalid value.'),
          401: unauthorized,
          409: errorResponse('A request with the same `Idempotency-Key` is still in progress.'),
          413: errorResponse('The body is larger than 16 KiB.'),
          422: errorResponse('The `Idempotency-Key` was already used with a different body.'),
          429: tooManyRequests(),
          500: internal,
        },
      },
    },
    async (request, reply) => {
      const accountId = request.auth!.accountId
      const key = parseIdempotencyKey(request.headers['idempotency-key'])
      const scope = key === undefined ? undefined : { accountId, key, fingerprint: fingerprintOf(request.body) }
      const response = await idempotency.execute(scope, async (trx) => {
        const pet = await pets.create({ accountId, pet: request.body }, trx)
        return { status: 201, body: pet, location: `/v1/pets/${pet.id}` }
      })
      if (response.replayed) reply.header('idempotent-replayed', 'true')
      if (response.location) reply.header('location', response.location)
      return reply.code(response.status as 201).send(response.body as Pet)
    },
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
