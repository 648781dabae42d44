// DELETE /v1/store/orders/{orderId}: 204 without a body; the order is then answered as missing everywhere, and
// kept in the database with the time it was cancelled (a record of what was ordered).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness } from '../../../helpers/harness.js'
import { expectError, injectSender } from '../../../helpers/http.js'
import { ordersOf, placeOrder } from '../../../helpers/orders.js'
import { createPet } from '../../../helpers/pets.js'

test('204 with no body; afterwards get is 404 and the list leaves it out; the row is kept as cancelled', async (t) => {
  const h = await startHarness(t)
  const { accountId, key } = await h.newAccount()
  const pet = await createPet(h, key, { name: 'Rex', categoryId: 1 })
  const kept = await placeOrder(h, key, { petId: pet.id })
  const order = await placeOrder(h, key, { petId: pet.id, status: 'delivered', complete: true })
  h.clock.set(new Date('2027-02-03T04:05:06.007Z'))
  const send = injectSender(h)
  const response = await send({ method: 'DELETE', url: `/v1/store/orders/${order.id}`, headers: bearer(key) })
  assert.equal(response.statusCode, 204)
  assert.equal(response.body, '')
  assert.equal(response.headers['content-type'], undefined)
  expectError(await send({ url: `/v1/store/orders/${order.id}`, headers: bearer(key) }), 404, 'order_not_found')
  for (const query of ['', '?status=delivered'])
    assert.deepEqual(
      JSON.parse((await send({ url: `/v1/store/orders${query}`, headers: bearer(key) })).body),
      query ? [] : [kept],
    )
  const rows = await ordersOf(h, accountId)
  assert.deepEqual(
    rows.map((r) => [Number(r.id), r.cancelled_at]),
    [
      [kept.id, null],
      [order.id, '2027-02-03T04:05:06.007Z'],
    ],
  )
})

test('cancelling changes nothing else: the pet and the other orders stay as they were', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const pet = await createPet(h, key, { name: 'Rex', categoryId: 1, status: 'sold' })
  const a = await placeOrder(h, key, { petId: pet.id })
  const b = await placeOrder(h, key, { petId: pet.id })
  assert.equal(
    (await h.app.inject({ method: 'DELETE', url: `/v1/store/orders/${a.id}`, headers: bearer(key) })).statusCode,
    204,
  )
  assert.deepEqual((await h.app.inject({ url: `/v1/store/orders/${b.id}`, headers: bearer(key) })).json(), b)
  assert.deepEqual((await h.app.inject({ url: `/v1/pets`, headers: bearer(key) })).json(), [pet])
  assert.equal((await placeOrder(h, key, { petId: pet.id })).petId, pet.id, 'the pet can be ordered again')
})
