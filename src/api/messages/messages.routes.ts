// The quickstart messages interface (spec 4.4): POST /messages queues a message, GET /messages/{id} shows it.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ApiRoutesOptions } from '../api.context.js'
import { Type } from 'typebox'
import { ApiError } from '../contract/errors.js'
import { refuseEncodedBody, requireJsonContentType } from '../platform/json-body.js'
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
import { createOnce, IdempotencyKeyHeader, idempotencyResponses, replayedHeader } from '../v1/idempotent-create.js'
import { MESSAGES_BODY_LIMIT_BYTES, MessageIdParams, MessageSchema, NewMessageSchema } from './messages.schemas.js'

const unauthorized = unauthorizedResponse()
const internal = internalResponse()

export const messagesRoutes: FastifyPluginAsyncTypebox<ApiRoutesOptions> = async (app, { api }) => {
  const { messages } = api

  app.post(
    '/messages',
    {
      preParsing: [refuseEncodedBody, requireJsonContentType],
      config: { scope: 'messages:write' },
      schema: {
        operationId: 'sendMessage',
        tags: ['messages'],
        summary: 'Send a message',
        description:
          'Queues a message and answers 202 at once: `status` is `queued`. The message is stored durably before the ' +
          'answer; a worker then delivers it and sets `status` to `delivered` (or `failed` once every attempt ' +
          'failed). Poll `GET /messages/{id}` to follow it.',
        headers: IdempotencyKeyHeader,
        querystring: NoQuery,
        body: ref(NewMessageSchema),
        response: {
          202: jsonResponse('Accepted and queued.', ref(MessageSchema), {
            Location: Type.String({ description: '`/messages/{id}` of the new message.' }),
            'Idempotent-Replayed': replayedHeader,
          }),
          ...jsonBodyRefusals(
            'Invalid JSON, `message` absent, not a string, empty or too long, an unknown field, or no `Content-Type: ' +
              'application/json`.',
            MESSAGES_BODY_LIMIT_BYTES,
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
        const message = await messages.create(
          { accountId: request.auth!.accountId, message: request.body.message },
          trx,
        )
        return { status: 202, body: message, location: `/messages/${message.id}` }
      }),
  )

  app.get(
    '/messages/:id',
    {
      // The sender reads its own messages: sending is what the key is for, so no separate read scope.
      config: { scope: 'messages:write' },
      schema: {
        operationId: 'getMessage',
        tags: ['messages'],
        summary: 'Get a message',
        description: 'The current state of one of your messages.',
        querystring: NoQuery,
        params: MessageIdParams,
        response: {
          200: jsonResponse('The message.', ref(MessageSchema)),
          400: errorResponse('An unknown query parameter was sent.', {}, ['invalid_parameter', 'bad_request']),
          401: unauthorized,
          404: errorResponse('No message with that id exists in your account.', {}, ['message_not_found']),
          429: tooManyRequests(),
          500: internal,
        },
      },
    },
    async (request) => {
      const message = await messages.get({ accountId: request.auth!.accountId, id: request.params.id })
      if (!message)
        throw new ApiError('message_not_found', `No message with id ${request.params.id} exists in your account.`)
      return message
    },
  )
}
