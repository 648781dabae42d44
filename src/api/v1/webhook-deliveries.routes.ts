// An endpoint's delivery log and sending events again (issue 36): every attempt newest first with the API's keyset
// paging, one event sent again, or every event that failed since a time ("recover").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { ApiRoutesOptions } from '../api.context.js'
import { linkNextPage, pageStart, pagingParameters } from '../contract/paging.js'
import {
  errorResponse,
  internalResponse,
  jsonBodyRefusals,
  jsonResponse,
  ref,
  requestText,
  tooManyRequests,
  unauthorizedResponse,
} from '../contract/schemas.js'
import { BODY_LIMIT_BYTES } from '../platform/base-app.js'
import { refuseEncodedBody, requireJsonContentType } from '../platform/json-body.js'
import { DeliveryAttemptsSchema, EndpointIdParams } from './webhooks.schemas.js'

const tags = ['webhooks']
const common = { 401: unauthorizedResponse(), 429: tooManyRequests(), 500: internalResponse() }
const notFound = errorResponse('No endpoint (or event) with that id in your account.', {}, [
  'webhook_endpoint_not_found',
  'event_not_found',
])
const disabled = errorResponse('The endpoint is disabled.', {}, ['webhook_endpoint_disabled'])
const json = { preParsing: [refuseEncodedBody, requireJsonContentType] }
const AttemptsQuery = Type.Object(pagingParameters('attempts', null), { additionalProperties: false })
const Accepted = Type.Object(
  { count: Type.Integer({ description: 'How many events were made due to be sent again.' }) },
  { additionalProperties: false },
)

export const webhookDeliveriesRoutes: FastifyPluginAsyncTypebox<ApiRoutesOptions> = async (app, { api }) => {
  // Registered only where webhooks are on (WEBHOOKS, api-app.ts).
  if (api.webhooks === undefined) throw new Error('webhook routes registered with WEBHOOKS=off')
  const { deliveryLog } = api.webhooks

  app.get(
    '/webhook-endpoints/:endpointId/attempts',
    {
      config: { scope: 'webhooks:read' },
      schema: {
        operationId: 'listWebhookAttempts',
        tags,
        summary: "An endpoint's delivery attempts",
        description:
          'Every attempt to deliver an event to the endpoint, newest first, kept `WEBHOOK_RETENTION_DAYS`: the ' +
          'status ' +
          'code or the class of error, how long it took and the first 1 KiB of the answer.',
        querystring: AttemptsQuery,
        params: EndpointIdParams,
        response: {
          200: jsonResponse('A page of attempts.', ref(DeliveryAttemptsSchema), {
            Link: Type.String({ description: '`<URL of the next page>; rel="next"`, present only when more exist.' }),
          }),
          400: errorResponse('A parameter is invalid or unknown, or the cursor was not issued by us.', {}, [
            'invalid_parameter',
            'invalid_cursor',
            'bad_request',
          ]),
          404: notFound,
          ...common,
        },
      },
    },
    async (request, reply) => {
      const route = { path: `/v1/webhook-endpoints/${request.params.endpointId}/attempts`, list: 'webhook-attempts' }
      const start = pageStart(api.cursors, request, route, request.query)
      const page = await deliveryLog.attempts({
        accountId: start.accountId,
        endpointId: request.params.endpointId,
        beforeSeq: start.afterId,
        limit: start.limit,
      })
      const lastId = page.attempts.at(-1)?.seq
      linkNextPage(api, request, reply, route, start, { hasMore: page.hasMore, lastId })
      return page.attempts.map(({ seq, ...attempt }) => ({ id: String(seq), ...attempt }))
    },
  )

  app.post(
    '/webhook-endpoints/:endpointId/resend',
    {
      ...json,
      config: { scope: 'webhooks:write' },
      schema: {
        operationId: 'resendWebhookEvent',
        tags,
        summary: 'Send an event to the endpoint again',
        description: 'The event is sent again at once, on the retry schedule if it fails, whether or not it went out.',
        params: EndpointIdParams,
        body: Type.Object(
          { eventId: requestText('The event (`evt_…`).', { minLength: 1, maxLength: 64 }) },
          { additionalProperties: false },
        ),
        response: {
          202: jsonResponse('Due to be sent.', Accepted),
          ...jsonBodyRefusals('The body is invalid.', BODY_LIMIT_BYTES),
          404: notFound,
          409: disabled,
          ...common,
        },
      },
    },
    async (request, reply) => {
      const { endpointId } = request.params
      await deliveryLog.resend({ accountId: request.auth!.accountId, endpointId, eventId: request.body.eventId })
      return reply.code(202).send({ count: 1 })
    },
  )

  app.post(
    '/webhook-endpoints/:endpointId/recover',
    {
      ...json,
      config: { scope: 'webhooks:write' },
      schema: {
        operationId: 'recoverWebhookEvents',
        tags,
        summary: 'Send every failed event again',
        description: 'Every event recorded since `since` whose delivery to this endpoint failed is sent again.',
        params: EndpointIdParams,
        body: Type.Object(
          { since: requestText('An ISO 8601 instant, e.g. `2030-01-01T00:00:00Z`.', { format: 'date-time' }) },
          { additionalProperties: false },
        ),
        response: {
          202: jsonResponse('Due to be sent.', Accepted),
          ...jsonBodyRefusals('The body is invalid.', BODY_LIMIT_BYTES),
          404: notFound,
          409: disabled,
          ...common,
        },
      },
    },
    async (request, reply) => {
      const input = { endpointId: request.params.endpointId, since: new Date(request.body.since) }
      const count = await deliveryLog.recover({ accountId: request.auth!.accountId, ...input })
      return reply.code(202).send({ count })
    },
  )
}
