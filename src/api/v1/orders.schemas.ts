// Store order schemas (issue 16; the reference pet store's Order): the one source of validation, serialization,
// TypeScript types and OpenAPI for the experimental store area.
import { Type, type Static } from 'typebox'
import { listQuery } from '../contract/paging.js'
import { int64, requestText } from '../contract/schemas.js'
import type { Same } from '../contract/same-type.js'
import {
  ORDER_STATUSES,
  QUANTITY_MAX,
  type NewOrder,
  type Order,
  type OrderStatus,
} from '../../modules/orders/order.js'

export { ORDER_STATUSES, type OrderStatus }

export const OrderStatusSchema = Type.Unsafe<OrderStatus>({
  $id: 'OrderStatus',
  title: 'OrderStatus',
  type: 'string',
  enum: [...ORDER_STATUSES],
  description: 'Where the order stands.',
})
const status = () => Type.Unsafe<OrderStatus>({ $ref: 'OrderStatus' })

const shipDate = (description: string) => Type.String({ format: 'date-time', description })

export const NewOrderSchema = Type.Object(
  {
    petId: int64('The animal ordered: a pet of your account.'),
    quantity: Type.Optional(
      Type.Integer({ minimum: 1, maximum: QUANTITY_MAX, default: 1, description: 'How many: 1 to 1000.' }),
    ),
    shipDate: Type.Optional(
      requestText('When to ship: an RFC 3339 date-time with a time zone (`Z` or an offset); answered in UTC.', {
        format: 'date-time',
      }),
    ),
    status: Type.Optional(Type.Unsafe<OrderStatus>({ $ref: 'OrderStatus', default: 'placed' })),
    complete: Type.Optional(Type.Boolean({ default: false, description: 'Whether the order is complete.' })),
  },
  { $id: 'NewOrder', title: 'NewOrder', additionalProperties: false },
)

export const OrderSchema = Type.Object(
  {
    id: int64('Unique identifier assigned on placement.'),
    petId: int64('The animal ordered.'),
    quantity: Type.Integer({ minimum: 1, maximum: QUANTITY_MAX, description: 'How many.' }),
    shipDate: Type.Optional(shipDate('When to ship, in UTC with milliseconds (`2026-12-01T10:00:00.000Z`).')),
    status: status(),
    complete: Type.Boolean({ description: 'Whether the order is complete.' }),
    createdAt: Type.String({
      format: 'date-time',
      description: 'When the order was placed (UTC, set by the service).',
    }),
  },
  {
    $id: 'Order',
    title: 'Order',
    additionalProperties: false,
    description: '`shipDate` is absent when the order was placed without one.',
  },
)

export const OrdersSchema = Type.Array(Type.Unsafe<Static<typeof OrderSchema>>({ $ref: 'Order' }), {
  $id: 'Orders',
  title: 'Orders',
  description: 'A bare array of orders, ordered by id ascending.',
})

export const ListOrdersQuery = listQuery({ status: status(), items: 'orders' })

/** Any int64: one that names no order of yours is a 404, anything else a 400. */
export const OrderIdParams = Type.Object(
  { orderId: int64('The identifier of the order (any 64-bit integer).') },
  { additionalProperties: false },
)

// The schemas describe exactly the module's types (a mismatch does not compile).
const schemasMatchTypes: [Same<Static<typeof NewOrderSchema>, NewOrder>, Same<Static<typeof OrderSchema>, Order>] = [
  true,
  true,
]
void schemasMatchTypes
