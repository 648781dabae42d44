// An order of a pet (the experimental store area) as the service keeps it and answers it. The API's schemas
// (api/v1/orders.schemas.ts) describe the same shapes to clients and are checked against these types when the code
// compiles.
export const ORDER_STATUSES = ['placed', 'approved', 'delivered'] as const
export type OrderStatus = (typeof ORDER_STATUSES)[number]
export const QUANTITY_MAX = 1000

export interface NewOrder {
  petId: bigint
  quantity?: number
  shipDate?: string
  status?: OrderStatus
  complete?: boolean
}

export interface Order {
  id: bigint
  petId: bigint
  quantity: number
  shipDate?: string
  status: OrderStatus
  complete: boolean
  createdAt: string
}
