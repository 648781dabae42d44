// POST /v1/store/orders refusals: every bad body is a 400 invalid_body naming the field (like createPet), a petId
// that is not the account's own pet included; content type, JSON and query errors; nothing is stored for any.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness } from '../../../helpers/harness.js'
import { expectError, injectSender } from '../../../helpers/http.js'
import { createPet, roomyAccount } from '../../../helpers/pets.js'

async function setup(t: Parameters<typeof startHarness>[0]) {
  const h = await startHarness(t)
  const account = await roomyAccount(h)
  const pet = await createPet(h, account.key, { name: 'Rex', categoryId: 1 })
  const send = injectSender(h)
  const post = (body: unknown, headers: Record<string, string> = {}, url = '/v1/store/orders') =>
    send({ method: 'POST', url, headers: { ...bearer(account.key), ...headers }, body })
  const noOrders = async () =>
    assert.deepEqual(await h.handle.db.selectFrom('orders').selectAll().execute(), [], 'nothing stored')
  return { h, ...account, pet, post, noOrders }
}

test('each bad field is a 400 invalid_body naming it', async (t) => {
  const { pet, post, noOrders } = await setup(t)
  const ok = { petId: pet.id }
  const cases: [string, unknown][] = [
    ['petId', {}],
    ['petId', { quantity: 1 }],
    ['petId', { petId: '1' }],
    ['petId', { petId: 1.5 }],
    ['petId', { petId: null }],
    ['quantity', { ...ok, quantity: 0 }],
    ['quantity', { ...ok, quantity: 1001 }],
    ['quantity', { ...ok, quantity: -1 }],
    ['quantity', { ...ok, quantity: 1.5 }],
    ['quantity', { ...ok, quantity: '2' }],
    ['quantity', { ...ok, quantity: null }],
    ['status', { ...ok, status: 'shipped' }],
    ['status', { ...ok, status: 'Placed' }],
    ['status', { ...ok, status: 1 }],
    ['complete', { ...ok, complete: 'true' }],
    ['complete', { ...ok, complete: 1 }],
    ['complete', { ...ok, complete: null }],
    ['shipDate', { ...ok, shipDate: '2026-12-01' }],
    ['shipDate', { ...ok, shipDate: '2026-12-01T10:00:00' }],
    ['shipDate', { ...ok, shipDate: '2026-12-01T10:00Z' }],
    ['shipDate', { ...ok, shipDate: '2026-02-30T10:00:00Z' }],
    ['shipDate', { ...ok, shipDate: '2026-12-01T25:00:00Z' }],
    ['shipDate', { ...ok, shipDate: 'tomorrow' }],
    ['shipDate', { ...ok, shipDate: '' }],
    ['shipDate', { ...ok, shipDate: 1796119200000 }],
    ['shipDate', { ...ok, shipDate: '2026-12-31T23:59:60Z' }],
    ['shipDate', { ...ok, shipDate: '0000-01-01T00:00:00+01:00' }],
    ['shipDate', { ...ok, shipDate: '9999-12-31T23:59:59-01:00' }],
    ['id', { ...ok, id: 5 }],
    ['createdAt', { ...ok, createdAt: '2026-12-01T10:00:00Z' }],
    ['name', { ...ok, name: 'Rex' }],
  ]
  for (const [field, body] of cases) {
    const response = await post(body)
    assert.equal(response.statusCode, 400, `${JSON.stringify(body)}: ${response.body}`)
    expectError(response, 400, 'invalid_body', `'${field}'`)
  }
  await noOrders()
})

test('a body that is not an object, empty or not JSON', async (t) => {
  const { post, noOrders } = await setup(t)
  const json = { 'content-type': 'application/json' }
  for (const body of ['[]', '1', '"order"', 'null']) expectError(await post(body, json), 400, 'invalid_body')
  for (const body of ['', '{', '{"petId":1,"petId":2}']) expectError(await post(body, json), 400, 'invalid_json')
  await noOrders()
})

test('a petId that names no pet of the account is 400 invalid_body naming petId', async (t) => {
  const { h, pet, post, noOrders } = await setup(t)
  const other = await h.newAccount()
  const foreign = await createPet(h, other.key, { name: 'Theirs', categoryId: 1 })
  for (const petId of [foreign.id, pet.id + 1000, 0, -1]) {
    const error = expectError(await post({ petId }), 400, 'invalid_body', "'petId'")
    assert.ok(!error.message.includes('Theirs'), 'nothing of the other account is shown')
  }
  await noOrders()
  const byOwner = await h.app.inject({
    method: 'POST',
    url: '/v1/store/orders',
    headers: bearer(other.key),
    payload: { petId: foreign.id },
  })
  assert.equal(byOwner.statusCode, 201, 'the owner may order it')
})

test('content type, query parameters and size are checked like createPet', async (t) => {
  const { pet, post, noOrders } = await setup(t)
  const body = JSON.stringify({ petId: pet.id })
  expectError(await post(body, { 'content-type': 'text/plain' }), 400, 'invalid_content_type')
  expectError(await post(body, {}), 400, 'invalid_content_type')
  expectError(await post(body, { 'content-type': 'application/json; charset=latin1' }), 400, 'invalid_content_type')
  expectError(await post({ petId: pet.id }, {}, '/v1/store/orders?status=placed'), 400, 'invalid_parameter', "'status'")
  expectError(await post({ petId: pet.id, note: 'x'.repeat(20_000) }), 413, 'payload_too_large')
  await noOrders()
})

test('other methods on the collection and an order: 405 with Allow', async (t) => {
  const { h, key } = await setup(t)
  const send = injectSender(h)
  for (const [method, url] of [
    ['PUT', '/v1/store/orders'],
    ['PATCH', '/v1/store/orders'],
    ['DELETE', '/v1/store/orders'],
    ['POST', '/v1/store/orders/1'],
    ['PUT', '/v1/store/orders/1'],
  ]) {
    const response = await send({ method, url: url!, headers: bearer(key) })
    expectError(response, 405, 'method_not_allowed')
    assert.ok(response.headers.allow, `${method} ${url}: Allow`)
  }
})
