// A page of orders is built by the database (src/modules/orders/orders-json.ts), a single order by the response
// serializer. Whatever an order holds, the two must read the same, byte for byte: same fields in the same order,
// int64 ids exact, `shipDate` absent when the order has none, `complete` a boolean. On the pass's backend.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness } from '../../../helpers/harness.js'
import { roomyAccount } from '../../../helpers/pets.js'

test('every order of a page reads byte for byte as the same order alone', async (t) => {
  const h = await startHarness(t)
  const { key } = await roomyAccount(h)
  const headers = { ...bearer(key), 'content-type': 'application/json' }
  const pet = await h.app.inject({ method: 'POST', url: '/v1/pets', headers, payload: { name: 'Rex', categoryId: 1 } })
  const petId = pet.json<{ id: number }>().id
  const bodies = [
    { petId },
    { petId, quantity: 1000, shipDate: '2030-02-28T23:59:59.999+05:30', status: 'approved', complete: true },
    { petId, quantity: 7, status: 'delivered', complete: false },
    { petId, shipDate: '1999-12-31T00:00:00Z' },
  ]
  for (const payload of bodies) {
    const placed = await h.app.inject({ method: 'POST', url: '/v1/store/orders', headers, payload })
    assert.equal(placed.statusCode, 201, placed.body)
  }
  const page = await h.app.inject({ url: '/v1/store/orders?limit=100', headers: bearer(key) })
  assert.equal(page.statusCode, 200)
  assert.equal(page.headers['content-type'], 'application/json; charset=utf-8')
  const ids = [...page.body.matchAll(/\{"id":(\d+),/g)].map((m) => m[1]!)
  assert.equal(ids.length, bodies.length)
  const alone = await Promise.all(
    ids.map(async (id) => (await h.app.inject({ url: `/v1/store/orders/${id}`, headers: bearer(key) })).body),
  )
  assert.equal(page.body, `[${alone.join(',')}]`)
  assert.doesNotMatch(alone[0]!, /shipDate/, 'no shipDate when none was given')
  assert.match(
    alone[1]!,
    /"status":"approved","complete":true,"createdAt":"[^"]+","shipDate":"2030-02-28T18:29:59.999Z"\}/,
  )
  const empty = await h.app.inject({ url: '/v1/store/orders?status=placed&limit=1', headers: bearer(key) })
  assert.equal(empty.body, `[${alone[0]}]`)
})
