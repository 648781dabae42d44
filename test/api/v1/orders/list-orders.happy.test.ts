// GET /v1/store/orders: a bare array of the account's live orders by id ascending, limited and filtered by status.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness } from '../../../helpers/harness.js'
import { seedOrders, type OrderJson } from '../../../helpers/orders.js'
import { roomyAccount } from '../../../helpers/pets.js'

test('no orders: 200 and an empty array, without a Link', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const response = await h.app.inject({ url: '/v1/store/orders', headers: bearer(key) })
  assert.equal(response.statusCode, 200)
  assert.match(String(response.headers['content-type']), /^application\/json/)
  assert.equal(response.body, '[]')
  assert.equal(response.headers.link, undefined)
})

test('a bare array by id, equal to each order as placed; limit and status narrow it', async (t) => {
  const h = await startHarness(t)
  const { key } = await roomyAccount(h)
  const statuses = ['placed', 'approved', 'delivered'] as const
  const orders = await seedOrders(h, key, 12, (i) => statuses[i % 3]!)
  const list = async (query: string) => {
    const response = await h.app.inject({ url: `/v1/store/orders${query}`, headers: bearer(key) })
    assert.equal(response.statusCode, 200, response.body)
    return response.json<OrderJson[]>()
  }
  assert.deepEqual(await list(''), orders)
  assert.deepEqual(await list('?limit=5'), orders.slice(0, 5))
  assert.deepEqual(await list('?limit=100'), orders)
  for (const status of statuses)
    assert.deepEqual(
      await list(`?status=${status}`),
      orders.filter((o) => o.status === status),
    )
  assert.deepEqual(await list('?status=delivered&limit=2'), orders.filter((o) => o.status === 'delivered').slice(0, 2))
})
