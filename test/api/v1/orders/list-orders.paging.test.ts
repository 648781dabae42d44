// Paging GET /v1/store/orders by following `Link: <…>; rel="next"` (the signed keyset cursor listPets uses):
// 250 orders, with and without a status filter: every order exactly once, in id order, no Link on the last page.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness } from '../../../helpers/harness.js'
import { placeOrder, seedOrders, walkOrders } from '../../../helpers/orders.js'
import { roomyAccount } from '../../../helpers/pets.js'

const STATUSES = ['placed', 'approved', 'delivered'] as const

async function setup(t: Parameters<typeof startHarness>[0]) {
  const h = await startHarness(t, { config: { publicUrl: 'https://api.example.test' } })
  const account = await roomyAccount(h)
  const other = await roomyAccount(h)
  // Another account's orders interleaved with ours: paging never shows them.
  await seedOrders(h, other.key, 20)
  const orders = await seedOrders(h, account.key, 250, (i) => STATUSES[i % 3]!)
  await seedOrders(h, other.key, 20)
  return { h, ...account, orders }
}

test(
  '250 orders, status=approved, limit 20: ' + 'every approved order once, in id order; the Link keeps limit and status',
  async (t) => {
    const { h, key, orders } = await setup(t)
    const approved = orders.filter((o) => o.status === 'approved')
    assert.equal(approved.length, 83)
    const { pages, links } = await walkOrders(h, key, '/v1/store/orders?status=approved&limit=20')
    assert.deepEqual(
      pages.map((p) => p.length),
      [20, 20, 20, 20, 3],
    )
    assert.deepEqual(pages.flat(), approved)
    assert.equal(links.length, 4, 'no Link on the last page')
    for (const link of links) {
      assert.equal(link.origin, 'https://api.example.test')
      assert.equal(link.pathname, '/v1/store/orders')
      assert.deepEqual([...link.searchParams.keys()], ['limit', 'status', 'cursor'])
      assert.equal(link.searchParams.get('limit'), '20')
      assert.equal(link.searchParams.get('status'), 'approved')
    }
  },
)

test('250 orders without a filter, at the default limit and at 100: each once, in id order', async (t) => {
  const { h, key, orders } = await setup(t)
  const byDefault = await walkOrders(h, key, '/v1/store/orders')
  assert.equal(byDefault.pages.length, 13)
  assert.deepEqual(byDefault.pages.flat(), orders)
  assert.equal(byDefault.links[0]?.searchParams.get('limit'), '20')
  const by100 = await walkOrders(h, key, '/v1/store/orders?limit=100')
  assert.deepEqual(
    by100.pages.map((p) => p.length),
    [100, 100, 50],
  )
  assert.deepEqual(by100.pages.flat(), orders)
})

test('a filter whose orders fill the last page exactly: no empty page is offered', async (t) => {
  const { h, key, orders } = await setup(t)
  const placed = orders.filter((o) => o.status === 'placed')
  assert.equal(placed.length, 84)
  const { pages, links } = await walkOrders(h, key, '/v1/store/orders?status=placed&limit=21')
  assert.deepEqual(
    pages.map((p) => p.length),
    [21, 21, 21, 21],
  )
  assert.equal(links.length, 3)
  assert.deepEqual(pages.flat(), placed)
})

test('orders cancelled or placed while paging: the cancelled are skipped, the new appear at the end', async (t) => {
  const { h, key, orders } = await setup(t)
  const delivered = orders.filter((o) => o.status === 'delivered')
  const first = await h.app.inject({ url: '/v1/store/orders?status=delivered&limit=50', headers: bearer(key) })
  const next = /^<([^>]+)>/.exec(String(first.headers.link))![1]!
  const cancelled = delivered[60]!
  assert.equal(
    (await h.app.inject({ method: 'DELETE', url: `/v1/store/orders/${cancelled.id}`, headers: bearer(key) }))
      .statusCode,
    204,
  )
  const added = await placeOrder(h, key, { petId: orders[0]!.petId, status: 'delivered' })
  const rest = await walkOrders(h, key, new URL(next).pathname + new URL(next).search)
  assert.deepEqual(
    [...first.json<unknown[]>(), ...rest.pages.flat()],
    [...delivered.filter((o) => o !== cancelled), added],
  )
})
