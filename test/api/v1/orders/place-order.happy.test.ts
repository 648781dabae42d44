// POST /v1/store/orders: 201 with the Order and its Location, the defaults, every field round-tripped, shipDate
// normalised to UTC with milliseconds, and nothing else changed by an order (pets have no transitions).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness } from '../../../helpers/harness.js'
import { placeOrder, type OrderJson } from '../../../helpers/orders.js'
import { createPet } from '../../../helpers/pets.js'

async function setup(t: Parameters<typeof startHarness>[0]) {
  const h = await startHarness(t)
  const account = await h.newAccount({ plan: 'pro' })
  const pet = await createPet(h, account.key, { name: 'Rex', categoryId: 7, status: 'available' })
  return { h, ...account, pet }
}

test(
  'only petId: 201, Location /v1/store/orders/{id}, quantity 1, ' +
    'status placed, not complete, no shipDate, createdAt now',
  async (t) => {
    const { h, key, pet } = await setup(t)
    h.clock.set(new Date('2027-03-04T05:06:07.089Z'))
    const response = await h.app.inject({
      method: 'POST',
      url: '/v1/store/orders',
      headers: bearer(key),
      payload: { petId: pet.id },
    })
    assert.equal(response.statusCode, 201, response.body)
    assert.match(String(response.headers['content-type']), /^application\/json/)
    const order = response.json<OrderJson>()
    assert.deepEqual(order, {
      id: order.id,
      petId: pet.id,
      quantity: 1,
      status: 'placed',
      complete: false,
      createdAt: '2027-03-04T05:06:07.089Z',
    })
    assert.ok(Number.isInteger(order.id) && order.id > 0)
    assert.equal(response.headers.location, `/v1/store/orders/${order.id}`)
    const read = await h.app.inject({ url: String(response.headers.location), headers: bearer(key) })
    assert.equal(read.statusCode, 200)
    assert.deepEqual(read.json(), order)
  },
)

test('every field is kept as sent; ids grow', async (t) => {
  const { h, key, pet } = await setup(t)
  const sent = {
    petId: pet.id,
    quantity: 1000,
    shipDate: '2026-12-01T10:00:00.000Z',
    status: 'delivered' as const,
    complete: true,
  }
  const first = await placeOrder(h, key, sent)
  assert.deepEqual({ ...first, id: 0, createdAt: '' }, { ...sent, id: 0, createdAt: '' })
  const second = await placeOrder(h, key, { petId: pet.id, quantity: 1, status: 'approved', complete: false })
  assert.ok(second.id > first.id)
  assert.equal(second.status, 'approved')
  assert.deepEqual((await h.app.inject({ url: `/v1/store/orders/${first.id}`, headers: bearer(key) })).json(), first)
})

test('shipDate: any RFC 3339 date-time is answered in UTC with milliseconds', async (t) => {
  const { h, key, pet } = await setup(t)
  const cases: [string, string][] = [
    ['2026-12-01T10:00:00Z', '2026-12-01T10:00:00.000Z'],
    ['2026-12-01T12:00:00+02:00', '2026-12-01T10:00:00.000Z'],
    ['2026-12-01T05:30:00-04:30', '2026-12-01T10:00:00.000Z'],
    ['2026-12-01T10:00:00.5Z', '2026-12-01T10:00:00.500Z'],
    ['2026-12-01T10:00:00.123456789Z', '2026-12-01T10:00:00.123Z'],
    ['2026-12-01t10:00:00z', '2026-12-01T10:00:00.000Z'],
    ['2026-12-01 10:00:00Z', '2026-12-01T10:00:00.000Z'],
    ['2027-01-01T00:30:00+01:00', '2026-12-31T23:30:00.000Z'],
  ]
  for (const [sent, answered] of cases) {
    const order = await placeOrder(h, key, { petId: pet.id, shipDate: sent })
    assert.equal(order.shipDate, answered, sent)
    const read = await h.app.inject({ url: `/v1/store/orders/${order.id}`, headers: bearer(key) })
    assert.equal(read.json<OrderJson>().shipDate, answered, `${sent}, read back`)
  }
})

test('an integral JSON number is an integer (quantity 2.0, 1e1)', async (t) => {
  const { h, key, pet } = await setup(t)
  for (const [text, quantity] of [
    ['2.0', 2],
    ['1e1', 10],
  ] as const) {
    const response = await h.app.inject({
      method: 'POST',
      url: '/v1/store/orders',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: `{"petId":${pet.id},"quantity":${text}}`,
    })
    assert.equal(response.statusCode, 201, response.body)
    assert.equal(response.json<OrderJson>().quantity, quantity)
  }
})

test('an order changes nothing of its pet, and the pet can be ordered again', async (t) => {
  const { h, key, pet } = await setup(t)
  await placeOrder(h, key, { petId: pet.id, status: 'delivered', complete: true })
  await placeOrder(h, key, { petId: pet.id })
  const pets = await h.app.inject({ url: '/v1/pets', headers: bearer(key) })
  assert.deepEqual(pets.json(), [pet])
})
