// The quickstart messages interface (spec 4.4): POST /messages queues a message, GET /messages/{id} shows it.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ApiError } from '../http/errors.js'
import { requireJsonContentType } from '../http/json-body.js'
import { errorResponse, jsonResponse, NoQuery, ref, tooManyRequests } from '../http/schemas.js'
import { fingerprintOf, parseIdempotencyKey } from '../idempotency/idempotency-key.js'
import { MessageIdParams, MessageSchema, NewMessageSchema, type Message } from './messages.schemas.js'

const unauthorized = errorResponse('Missing or invalid API key, or an `Authorization` header not of the form `Bearer <API_KEY>`.', {
  'WWW-Authenticate': Type.String({ description: 'Bearer challenge (RFC 6750).' }),
})
const internal = errorResponse('Unexpected failure; nothing internal is shown.')

export const messagesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { messages, idempotency } = app

  app.post(
    '/messages',
    {
      preParsing: requireJsonContentType,
      schema: {
        operationId: 'sendMessage',
        tags: ['messages'],
        summary: 'Send a message',
        description:
          'Queues a message and answers 202 at once: `status` is `queued`. The message is stored durably before the answer; a worker then delivers it and sets `status` to `delivered` (or `failed` once every attempt failed). Poll `GET /messages/{id}` to follow it.',
        headers: Type.Object({
          'idempotency-key': Type.Optional(Type.String({ description: 'Makes the request safe to retry; same rules as on `POST /v1/pets`.' })),
        }),
        querystring: NoQuery,
        body: ref(NewMessageSchema),
        response: {
          202: jsonResponse('Accepted and queued.', ref(MessageSchema), {
            Location: Type.String({ description: '`/messages/{id}` of the new message.' }),
            'Idempotent-Replayed': Type.String({ description: '`true` when this is the stored response of an earlier request with the same `Idempotency-Key`.' }),
          }),
          400: errorResponse('Invalid JSON, `message` absent, not a string, empty or too long, an unknown field, or no `Content-Type: application/json`.'),
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
        const message = await messages.create({ accountId, message: request.body.message }, trx)
        return { status: 202, body: message, location: `/messages/${message.id}` }
      })
      if (response.replayed) reply.header('idempotent-replayed', 'true')
      return reply
        .code(response.status as 202)
        .header('location', response.location)
        .send(response.body as Message)
    },
  )

  app.get(
    '/messages/:id',
    {
      schema: {
        operationId: 'getMessage',
        tags: ['messages'],
        summary: 'Get a message',
        description: 'The current state of one of your messages.',
        querystring: NoQuery,
        params: MessageIdParams,
        response: {
          200: jsonResponse('The message.', ref(MessageSchema)),
          400: errorResponse('An unknown query parameter was sent.'),
          401: unauthorized,
          404: errorResponse('No message with that id exists in your account.'),
          429: tooManyRequests(),
          500: internal,
        },
      },
    },
    async (request) => {
      const message = await messages.get({ accountId: request.auth!.accountId, id: request.params.id })
      if (!message) throw new ApiError('message_not_found', `No message with id ${request.params.id} exists in your account.`)
      return message
    },
  )
}
