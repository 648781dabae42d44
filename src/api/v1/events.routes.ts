// The events recorded for an account (issue 36): what its webhook endpoints are sent, listable newest first with the
// same keyset paging and signed cursors as the pets, for WEBHOOK_RETENTION_DAYS.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ApiRoutesOptions } from '../api.context.js'
import { Type } from 'typebox'
import { ApiError } from '../contract/errors.js'
import { linkNextPage, pageStart } from '../contract/paging.js'
import {
  errorResponse,
  internalResponse,
  jsonResponse,
  NoQuery,
  ref,
  tooManyRequests,
  unauthorizedResponse,
} from '../contract/schemas.js'
import { sendJsonText } from '../platform/json-body.js'
import { EventIdParams, EventSchema, EventsSchema, ListEventsQuery } from './webhooks.schemas.js'

const common = { 401: unauthorizedResponse(), 429: tooManyRequests(), 500: internalResponse() }
// Signed with the list's name (a cursor of another list is refused here); the filter is `type`.
const EVENTS_LIST = { path: '/v1/events', list: 'events', filter: 'type' }

export const eventsRoutes: FastifyPluginAsyncTypebox<ApiRoutesOptions> = async (app, { api }) => {
  // Registered only where webhooks are on (WEBHOOKS, api-app.ts).
  if (api.webhooks === undefined) throw new Error('webhook routes registered with WEBHOOKS=off')
  const { events } = api.webhooks

  app.get(
    '/events',
    {
      config: { scope: 'webhooks:read' },
      schema: {
        operationId: 'listEvents',
        tags: ['webhooks'],
        summary: 'List events',
        description:
          'Events recorded for your account, newest first, optionally of one type. An event is recorded only while ' +
          'an enabled endpoint of the account is subscribed to its type. When more exist the response carries ' +
          '`Link: <…>; rel="next"`.',
        querystring: ListEventsQuery,
        response: {
          200: jsonResponse('A page of events (a bare array).', ref(EventsSchema), {
            Link: Type.String({ description: '`<URL of the next page>; rel="next"`, present only when more exist.' }),
          }),
          400: errorResponse(
            'A query parameter is invalid, repeated or unknown, or the cursor was not issued by us.',
            {},
            ['invalid_parameter', 'invalid_cursor', 'bad_request'],
          ),
          ...common,
        },
      },
    },
    async (request, reply) => {
      const { type, ...rest } = request.query
      const start = pageStart(api.cursors, request, EVENTS_LIST, { ...rest, status: type })
      const page = await events.page({ accountId: start.accountId, type, afterId: start.afterId, limit: start.limit })
      linkNextPage(api, request, reply, EVENTS_LIST, start, page)
      return sendJsonText(reply, page.json)
    },
  )

  app.get(
    '/events/:eventId',
    {
      config: { scope: 'webhooks:read' },
      schema: {
        operationId: 'getEvent',
        tags: ['webhooks'],
        summary: 'Get an event',
        querystring: NoQuery,
        params: EventIdParams,
        response: {
          200: jsonResponse('The event, as its deliveries carry it.', ref(EventSchema)),
          400: errorResponse('A query parameter was sent, or the id is malformed.', {}, [
            'invalid_parameter',
            'bad_request',
          ]),
          404: errorResponse('No event with that id in your account.', {}, ['event_not_found']),
          ...common,
        },
      },
    },
    async (request, reply) => {
      const event = await events.get(request.auth!.accountId, request.params.eventId)
      if (event === undefined)
        throw new ApiError('event_not_found', `No event with id ${request.params.eventId} exists in your account.`)
      return sendJsonText(reply, event)
    },
  )
}
