// Store orders for tests: placed through HTTP (the interface under test), read back as rows, paged through by
// following `Link: rel="next"`, and the four operations for the shared authentication checks.
import assert from 'node:assert/strict'
import type { OrderStatus } from '../../src/api/v1/orders.schemas.js'
import type { Operation } from './auth-checks.js'
import { bearer, type Harness } from './harness.js'
import { createPet } from './pets.js'
import type { recordQueries } from './query-log.js'

export interface OrderJson {
  id: number
  petId: number
  quantity: number
  shipDate?: string
  status: OrderStatus
  complete: boolean
  createdAt: string
}

interface NewOrderJson {
  petId: number | string
  quantity?: number
  shipDate?: string
  status?: OrderStatus
  complete?: boolean
}

/** POST /v1/store/orders; asserts the 201 and returns the order (ids here stay far below 2^53). */
export async function placeOrder(
  h: Harness,
  key: string,
  order: NewOrderJson,
  headers: Record<string, string> = {},
): Promise<OrderJson> {
  const response = await h.app.inject({
    method: 'POST',
    url: '/v1/store/orders',
    headers: { ...bearer(key), ...headers },
    payload: order,
  })
  assert.equal(response.statusCode, 201, response.body)
  return response.json<OrderJson>()
}

/** A pet of the account and one order for it. */
export async function petAndOrder(h: Harness, key: string): Promise<{ petId: number; order: OrderJson }> {
  const pet = await createPet(h, key, { name: 'Rex', categoryId: 1 })
  return { petId: pet.id, order: await placeOrder(h, key, { petId: pet.id }) }
}

/** Places `count` orders for one pet of the account; `statusOf(i)` picks each status. Returns them in order. */
export async function seedOrders(
  h: Harness,
  key: string,
  count: number,
  statusOf: (i: number) => OrderStatus = () => 'placed',
): Promise<OrderJson[]> {
  const pet = await createPet(h, key, { name: 'Rex', categoryId: 1 })
  const orders: OrderJson[] = []
  for (let i = 0; i < count; i++)
    orders.push(await placeOrder(h, key, { petId: pet.id, status: statusOf(i), quantity: 1 + (i % 5) }))
  return orders
}

/** The orders rows of an account, straight from the database (cancelled ones included), by id. */
export function ordersOf(h: Harness, accountId: string) {
  return h.handle.db.selectFrom('orders').selectAll().where('account_id', '=', accountId).orderBy('id').execute()
}

const NEXT = /^<([^>]+)>; rel="next"$/

/** GETs `url` and every rel="next" after it; returns each page's orders and the Link URLs followed. */
export async function walkOrders(
  h: Harness,
  key: string,
  url: string,
): Promise<{ pages: OrderJson[][]; links: URL[] }> {
  const pages: OrderJson[][] = []
  const links: URL[] = []
  let next: string | undefined = url
  while (next !== undefined) {
    const response: { statusCode: number; headers: Record<string, unknown>; body: string; json: <T>() => T } =
      await h.app.inject({ url: next, headers: bearer(key) })
    assert.equal(response.statusCode, 200, response.body)
    pages.push(response.json<OrderJson[]>())
    const link = response.headers.link
    if (link === undefined) break
    const match = NEXT.exec(String(link))
    assert.ok(match, `Link is RFC 8288 <URI>; rel="next": ${String(link)}`)
    const target = new URL(match[1]!)
    links.push(target)
    next = target.pathname + target.search
    assert.ok(pages.length <= 300, 'paging ends')
  }
  return { pages, links }
}

export const ORDER_OPERATIONS: Operation[] = [
  { name: 'listOrders', method: 'GET', url: async () => '/v1/store/orders', ok: 200 },
  {
    name: 'placeOrder',
    method: 'POST',
    // Every check starts on a fresh database, where the account's first pet gets id 1: the body names it.
    url: async (h, account) => {
      assert.equal((await createPet(h, account.key, { name: 'Rex', categoryId: 1 })).id, 1)
      return '/v1/store/orders'
    },
    body: { petId: 1 },
    ok: 201,
    fresh: true,
  },
  {
    name: 'getOrder',
    method: 'GET',
    url: async (h, account) => `/v1/store/orders/${(await petAndOrder(h, account.key)).order.id}`,
    ok: 200,
  },
  {
    name: 'cancelOrder',
    method: 'DELETE',
    url: async (h, account) => `/v1/store/orders/${(await petAndOrder(h, account.key)).order.id}`,
    ok: 204,
    once: true,
  },
]

/** Pages `/v1/store/orders?query` to the `pages`-th Link, reads that page, and returns the SQL that read it. */
export async function deepOrdersPageQuery(
  h: Harness,
  key: string,
  query: string,
  pages: number,
  log: ReturnType<typeof recordQueries>,
) {
  const { links } = await walkOrders(h, key, `/v1/store/orders?${query}`)
  assert.ok(links.length >= pages, `at least ${pages} pages`)
  log.queries.length = 0
  const last = await h.app.inject({ url: links[pages - 1]!.pathname + links[pages - 1]!.search, headers: bearer(key) })
  assert.equal(last.statusCode, 200)
  assert.ok(last.json<unknown[]>().length > 0)
  const ordersQueries = log.queries.filter((q) => /^select\b.*\bfrom "orders"/i.test(q.sql))
  assert.equal(ordersQueries.length, 1, 'one query reads the page')
  return ordersQueries[0]!
}
