// The store area (issue 16), mounted under /v1 behind the same gate as the pets: authenticated, counted against
// the account's one quota. Experimental: every operation says so in the OpenAPI document (`x-stability`).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ApiRoutesOptions } from '../api.context.js'
import { Type } from 'typebox'
import { BODY_LIMIT_BYTES } from '../platform/base-app.js'
import { ApiError } from '../contract/errors.js'
import { refuseEncodedBody, requireJsonContentType, sendJsonText } from '../platform/json-body.js'
import { linkNextPage, pageStart } from '../contract/paging.js'
import {
  emptyResponse,
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
import { ListOrdersQuery, NewOrderSchema, OrderIdParams, OrderSchema, OrdersSchema } from './orders.schemas.js'

const header = (description: string) => Type.String({ description })
/** What every store operation shares in its route schema: the tag and the spec's stability marker (section 9). */
const store = { tags: ['store'], 'x-stability': 'experimental' }
const common = { 401: unauthorizedResponse(), 429: tooManyRequests(), 500: internalResponse() }
const notFound = errorResponse(
  "No order with that id in your account (`order_not_found`): missing, another account's, or cancelled.",
  {},
  ['order_not_found'],
)
const badOrderId = errorResponse('`orderId` is not a 64-bit integer, or a query parameter was sent.', {}, [
  'invalid_parameter',
  'bad_request',
])
// Signed with the list's name: a cursor of listPets is refused here, and the reverse.
export const ORDERS_LIST = { path: '/v1/store/orders', list: 'orders' }
const notFoundError = (id: bigint) => new ApiError('order_not_found', `No order with id ${id} exists in your account.`)

export const ordersRoutes: FastifyPluginAsyncTypebox<ApiRoutesOptions> = async (app, { api }) => {
  const { orders } = api

  app.get(
    '/store/orders',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'listOrders',
        ...store,
        summary: 'List orders (experimental)',
        description:
          'Orders of your account ordered by id ascending, optionally filtered by status; cancelled orders are not ' +
          'listed. When more results exist the response carries `Link: <…>; rel="next"`; follow it (it keeps `limit` ' +
          'and `status`) to get the next page.',
        querystring: ListOrdersQuery,
        response: {
          200: jsonResponse('A page of orders (a bare array).', ref(OrdersSchema), {
            Link: header('`<URL of the next page>; rel="next"` (RFC 8288), present only when more results exist.'),
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
      const start = pageStart(api.cursors, request, ORDERS_LIST, request.query)
      const page = await orders.page(start)
      linkNextPage(api, request, reply, ORDERS_LIST, start, page)
      return sendJsonText(reply, page.json)
    },
  )

  app.post(
    '/store/orders',
    {
      preParsing: [refuseEncodedBody, requireJsonContentType],
      config: { scope: 'orders:write' },
      schema: {
        operationId: 'placeOrder',
        ...store,
        summary: 'Place an order for a pet (experimental)',
        description:
          'Places an order for a pet of your account. The order is committed to the database before the 201 is sent.',
        headers: IdempotencyKeyHeader,
        querystring: NoQuery,
        body: ref(NewOrderSchema),
        response: {
          201: jsonResponse('Order placed; `id` is assigned by the service.', ref(OrderSchema), {
            Location: header('`/v1/store/orders/{id}` of the new order.'),
            'Idempotent-Replayed': replayedHeader,
          }),
          ...jsonBodyRefusals(
            'The body is not JSON, not an object, misses `petId`, has an unknown field or invalid value, or `petId` ' +
              'is not a pet of your account.',
            BODY_LIMIT_BYTES,
          ),
          ...idempotencyResponses,
          ...common,
        },
      },
    },
    async (request, reply) =>
      createOnce(api.idempotency, request, reply, async (trx) => {
        const order = await orders.place({ accountId: request.auth!.accountId, order: request.body }, trx)
        return { status: 201, body: order, location: `/v1/store/orders/${order.id}` }
      }),
  )

  app.get(
    '/store/orders/:orderId',
    {
      config: { scope: 'orders:read' },
      schema: {
        operationId: 'getOrder',
        ...store,
        summary: 'Get an order (experimental)',
        querystring: NoQuery,
        params: OrderIdParams,
        response: { 200: jsonResponse('Order found.', ref(OrderSchema)), 400: badOrderId, 404: notFound, ...common },
      },
    },
    async (request) => {
      const order = await orders.get({ accountId: request.auth!.accountId, id: request.params.orderId })
      if (!order) throw notFoundError(request.params.orderId)
      return order
    },
  )

  app.delete(
    '/store/orders/:orderId',
    {
      config: { scope: 'orders:write' },
      schema: {
        operationId: 'cancelOrder',
        ...store,
        summary: 'Cancel an order (experimental)',
        description: 'Cancels the order: from then on it is answered as missing (404), by this operation too.',
        querystring: NoQuery,
        params: OrderIdParams,
        response: { 204: emptyResponse('Order cancelled.'), 400: badOrderId, 404: notFound, ...common },
      },
    },
    async (request, reply) => {
      if (!(await orders.cancel({ accountId: request.auth!.accountId, id: request.params.orderId })))
        throw notFoundError(request.params.orderId)
      return reply.code(204).send()
    },
  )
}
