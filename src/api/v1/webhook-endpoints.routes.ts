// Webhook endpoints (issue 36), mounted under /v1 behind the same gate as the pets: an account's endpoints, their
// secrets (shown when made and when rotated, never again) and a test event on demand. Events: events.routes.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import type { ApiRoutesOptions } from '../api.context.js'
import { Type } from 'typebox'
import type { AuditActor } from '../../modules/audit/audit-event.js'
import { BODY_LIMIT_BYTES } from '../platform/base-app.js'
import { refuseEncodedBody, requireJsonContentType, sendJsonText } from '../platform/json-body.js'
import {
  emptyResponse,
  errorResponse,
  internalResponse,
  jsonBodyRefusals,
  jsonResponse,
  NoQuery,
  ref,
  tooManyRequests,
  unauthorizedResponse,
} from '../contract/schemas.js'
import {
  EndpointIdParams,
  EventSchema,
  NewWebhookEndpointSchema,
  RotateSecretSchema,
  WebhookEndpointPatchSchema,
  WebhookEndpointSchema,
  WebhookEndpointsSchema,
  WebhookEndpointWithSecretSchema,
} from './webhooks.schemas.js'

const tags = ['webhooks']
const common = { 401: unauthorizedResponse(), 429: tooManyRequests(), 500: internalResponse() }
const notFound = errorResponse('No endpoint with that id in your account.', {}, ['webhook_endpoint_not_found'])
const badId = errorResponse('A query parameter was sent, or the id is malformed.', {}, [
  'invalid_parameter',
  'bad_request',
])
const bodyRefusals = (what: string) => jsonBodyRefusals(what, BODY_LIMIT_BYTES)
const json = { preParsing: [refuseEncodedBody, requireJsonContentType] }

/** Who made a change through the API: the account, from the request's client address. */
const actorOf = (request: FastifyRequest): AuditActor => ({
  kind: 'account',
  accountId: request.auth!.accountId,
  email: null,
  address: request.ip,
})

export const webhookEndpointsRoutes: FastifyPluginAsyncTypebox<ApiRoutesOptions> = async (app, { api }) => {
  // Registered only where webhooks are on (WEBHOOKS, api-app.ts).
  if (api.webhooks === undefined) throw new Error('webhook routes registered with WEBHOOKS=off')
  const { endpoints } = api.webhooks
  const read = { scope: 'webhooks:read' as const }
  const write = { scope: 'webhooks:write' as const }

  app.get(
    '/webhook-endpoints',
    {
      config: read,
      schema: {
        operationId: 'listWebhookEndpoints',
        tags,
        summary: 'List webhook endpoints',
        querystring: NoQuery,
        response: {
          200: jsonResponse('Every endpoint of the account.', ref(WebhookEndpointsSchema)),
          400: badId,
          ...common,
        },
      },
    },
    async (request) => endpoints.list(request.auth!.accountId),
  )

  app.post(
    '/webhook-endpoints',
    {
      ...json,
      config: write,
      schema: {
        operationId: 'createWebhookEndpoint',
        tags,
        summary: 'Add a webhook endpoint',
        description:
          'Registers a URL that is sent the chosen events, signed per Standard Webhooks. The response holds the ' +
          'signing secret: it is not shown again (rotate it to get a new one). At most 10 endpoints per account.',
        querystring: NoQuery,
        body: ref(NewWebhookEndpointSchema),
        response: {
          201: jsonResponse('Endpoint added, with its secret.', ref(WebhookEndpointWithSecretSchema), {
            Location: Type.String({ description: '`/v1/webhook-endpoints/{id}` of the new endpoint.' }),
          }),
          ...bodyRefusals('The body is invalid, or the URL cannot be delivered to (the message says why).'),
          409: errorResponse('The account has 10 endpoints already.', {}, ['webhook_endpoint_limit_reached']),
          ...common,
        },
      },
    },
    async (request, reply) => {
      const made = await endpoints.create(request.auth!.accountId, request.body, actorOf(request))
      reply.header('location', `/v1/webhook-endpoints/${made.endpoint.id}`)
      return reply.code(201).send({ ...made.endpoint, secret: made.secret })
    },
  )

  app.get(
    '/webhook-endpoints/:endpointId',
    {
      config: read,
      schema: {
        operationId: 'getWebhookEndpoint',
        tags,
        summary: 'Get a webhook endpoint',
        querystring: NoQuery,
        params: EndpointIdParams,
        response: {
          200: jsonResponse('The endpoint.', ref(WebhookEndpointSchema)),
          400: badId,
          404: notFound,
          ...common,
        },
      },
    },
    async (request) => endpoints.get(request.auth!.accountId, request.params.endpointId),
  )

  app.patch(
    '/webhook-endpoints/:endpointId',
    {
      ...json,
      config: write,
      schema: {
        operationId: 'updateWebhookEndpoint',
        tags,
        summary: 'Change a webhook endpoint',
        description: 'Changes the fields sent; `enabled: false` disables it, `true` enables it again.',
        querystring: NoQuery,
        params: EndpointIdParams,
        body: ref(WebhookEndpointPatchSchema),
        response: {
          200: jsonResponse('The endpoint as changed.', ref(WebhookEndpointSchema)),
          ...bodyRefusals('The body is invalid or empty, or the URL cannot be delivered to.'),
          404: notFound,
          ...common,
        },
      },
    },
    async (request) =>
      endpoints.update(request.auth!.accountId, request.params.endpointId, request.body, actorOf(request)),
  )

  app.delete(
    '/webhook-endpoints/:endpointId',
    {
      config: write,
      schema: {
        operationId: 'deleteWebhookEndpoint',
        tags,
        summary: 'Delete a webhook endpoint',
        description: 'Nothing more is sent to it, retries included.',
        querystring: NoQuery,
        params: EndpointIdParams,
        response: { 204: emptyResponse('Endpoint deleted.'), 400: badId, 404: notFound, ...common },
      },
    },
    async (request, reply) => {
      await endpoints.delete(request.auth!.accountId, request.params.endpointId, actorOf(request))
      return reply.code(204).send()
    },
  )

  app.post(
    '/webhook-endpoints/:endpointId/rotate-secret',
    {
      ...json,
      config: write,
      schema: {
        operationId: 'rotateWebhookEndpointSecret',
        tags,
        summary: 'Rotate the signing secret',
        description:
          'Makes a new secret and returns it (once). The old one keeps signing for `graceSeconds` (default a day): ' +
          'until then each delivery carries both signatures, so receivers can switch without losing an event.',
        querystring: NoQuery,
        params: EndpointIdParams,
        body: RotateSecretSchema,
        response: {
          200: jsonResponse('The endpoint with its new secret.', ref(WebhookEndpointWithSecretSchema)),
          ...bodyRefusals('The body is invalid.'),
          404: notFound,
          ...common,
        },
      },
    },
    async (request) => {
      const input = { graceSeconds: request.body.graceSeconds }
      const made = await endpoints.rotateSecret(
        request.auth!.accountId,
        request.params.endpointId,
        input,
        actorOf(request),
      )
      return { ...made.endpoint, secret: made.secret }
    },
  )

  app.post(
    '/webhook-endpoints/:endpointId/test',
    {
      config: write,
      schema: {
        operationId: 'sendWebhookTestEvent',
        tags,
        summary: 'Send a test event',
        description: 'Records a `webhook.test` event and sends it to this endpoint only, like any event.',
        querystring: NoQuery,
        params: EndpointIdParams,
        response: {
          202: jsonResponse('The event, queued for delivery.', ref(EventSchema)),
          400: badId,
          404: notFound,
          409: errorResponse('The endpoint is disabled.', {}, ['webhook_endpoint_disabled']),
          ...common,
        },
      },
    },
    async (request, reply) => {
      const event = await endpoints.sendTest(request.auth!.accountId, request.params.endpointId)
      return sendJsonText(reply.code(202), event)
    },
  )
}
