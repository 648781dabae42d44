// GET /v1/store/orders/{orderId}: 200 with the Order exactly as placed, for every key of the account.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness } from '../../../helpers/harness.js'
import { placeOrder } from '../../../helpers/orders.js'
import { createPet } from '../../../helpers/pets.js'
import { testActor } from '../../../helpers/actors.js'

test('an order is read back as placed, with JSON content type, by any key of the account', async (t) => {
  const h = await startHarness(t)
  const { accountId, key } = await h.newAccount()
  const pet = await createPet(h, key, { name: 'Rex', categoryId: 1 })
  const order = await placeOrder(h, key, {
    petId: pet.id,
    quantity: 3,
    shipDate: '2026-12-01T10:00:00Z',
    status: 'approved',
    complete: true,
  })
  const second = await h.services.accounts.createApiKey({ actor: testActor, accountId, environment: 'test' })
  for (const k of [key, second.key]) {
    const response = await h.app.inject({ url: `/v1/store/orders/${order.id}`, headers: bearer(k) })
    assert.equal(response.statusCode, 200, response.body)
    assert.match(String(response.headers['content-type']), /^application\/json/)
    assert.deepEqual(response.json(), order)
  }
  assert.deepEqual(Object.keys(order).sort(), [
    'complete',
    'createdAt',
    'id',
    'petId',
    'quantity',
    'shipDate',
    'status',
  ])
})
