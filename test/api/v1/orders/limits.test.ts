// The store operations are rate-limited on the account's one quota, shared with the pets, behind the same /v1 gate:
// every response (2xx, 4xx, 429, 500) carries the limit headers, counting down across both areas, and a quota used
// up by either refuses both with 429. Requests without a valid key are limited per address.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { bearer, startHarness } from '../../../helpers/harness.js'
import { expectError } from '../../../helpers/http.js'
import { FREE_POLICY, limitHeaders, spend, type Res } from '../../../modules/limits/support.js'

const ADDRESS_POLICY = '"minute";q=60;w=60'

async function setup(t: Parameters<typeof startHarness>[0]) {
  const h = await startHarness(t, { now: new Date('2027-01-01T00:00:30Z') })
  const account = await h.newAccount()
  const json = { ...bearer(account.key), 'content-type': 'application/json' }
  return { h, ...account, json }
}

test('every store response carries the account headers; pets and orders count down one quota', async (t) => {
  const { h, key, json } = await setup(t)
  const auth = bearer(key)
  const pet = await h.app.inject({
    method: 'POST',
    url: '/v1/pets',
    headers: json,
    payload: '{"name":"Rex","categoryId":1}',
  })
  const petId = pet.json<{ id: number }>().id
  const cases: [string, number, () => Promise<Res>][] = [
    [
      'placeOrder',
      201,
      () => h.app.inject({ method: 'POST', url: '/v1/store/orders', headers: json, payload: `{"petId":${petId}}` }),
    ],
    ['listOrders', 200, () => h.app.inject({ url: '/v1/store/orders', headers: auth })],
    ['listPets', 200, () => h.app.inject({ url: '/v1/pets', headers: auth })],
    ['getOrder', 200, () => h.app.inject({ url: '/v1/store/orders/1', headers: auth })],
    ['bad query', 400, () => h.app.inject({ url: '/v1/store/orders?limit=0', headers: auth })],
    ['bad body', 400, () => h.app.inject({ method: 'POST', url: '/v1/store/orders', headers: json, payload: '{}' })],
    [
      'foreign petId',
      400,
      () => h.app.inject({ method: 'POST', url: '/v1/store/orders', headers: json, payload: '{"petId":999}' }),
    ],
    ['bad orderId', 400, () => h.app.inject({ url: '/v1/store/orders/abc', headers: auth })],
    ['cancelOrder', 204, () => h.app.inject({ method: 'DELETE', url: '/v1/store/orders/1', headers: auth })],
    ['order_not_found', 404, () => h.app.inject({ method: 'DELETE', url: '/v1/store/orders/1', headers: auth })],
    ['wrong method', 405, () => h.app.inject({ method: 'PUT', url: '/v1/store/orders/1', headers: auth })],
    [
      'too large',
      413,
      () =>
        h.app.inject({
          method: 'POST',
          url: '/v1/store/orders',
          headers: json,
          payload: JSON.stringify({ petId, x: 'x'.repeat(20_000) }),
        }),
    ],
  ]
  let expected = 59 // the pet's creation was the first request
  for (const [what, status, send] of cases) {
    const response = await send()
    assert.equal(response.statusCode, status, `${what}: ${response.body}`)
    const headers = limitHeaders(response)
    if (status === 405) {
      assert.equal(headers.policy, ADDRESS_POLICY, `${what}: limited per address, like every 405`)
      continue
    }
    assert.equal(headers.policy, FREE_POLICY, what)
    assert.equal(headers.remaining, --expected, `${what}: every keyed request is counted on the one quota`)
  }
})

test('a quota used up by the pets refuses the store with 429 and Retry-After, and the reverse', async (t) => {
  const { h, key, json } = await setup(t)
  await spend(h, key, 60)
  for (const [method, url] of [
    ['GET', '/v1/store/orders'],
    ['POST', '/v1/store/orders'],
    ['GET', '/v1/store/orders/1'],
    ['DELETE', '/v1/store/orders/1'],
  ] as const) {
    const response = await h.app.inject({
      method,
      url,
      headers: json,
      ...(method === 'POST' ? { payload: '{"petId":1}' } : {}),
    })
    expectError(
      { statusCode: response.statusCode, headers: response.headers as Record<string, string>, body: response.body },
      429,
      'rate_limit_exceeded',
    )
    assert.match(String(response.headers['retry-after']), /^[1-9]\d*$/)
    assert.equal(limitHeaders(response).remaining, 0)
  }
  const other = await h.newAccount()
  for (let i = 0; i < 60; i++)
    assert.equal((await h.app.inject({ url: '/v1/store/orders', headers: bearer(other.key) })).statusCode, 200)
  const pets = await h.app.inject({ url: '/v1/pets', headers: bearer(other.key) })
  assert.equal(pets.statusCode, 429)
})

test('a 500 of the store carries the headers too, and shows nothing internal', async (t) => {
  const { h, key } = await setup(t)
  await sql`DROP TABLE orders`.execute(h.handle.db)
  const response = await h.app.inject({ url: '/v1/store/orders', headers: bearer(key) })
  const error = expectError(
    { statusCode: response.statusCode, headers: response.headers as Record<string, string>, body: response.body },
    500,
    'internal_error',
  )
  assert.doesNotMatch(error.message, /orders|table|sql/i)
  assert.equal(limitHeaders(response).remaining, 59)
})

test('store requests without a valid key are limited per address', async (t) => {
  const { h } = await setup(t)
  const cases: [string, () => Promise<Res>][] = [
    ['no key', () => h.app.inject({ url: '/v1/store/orders' })],
    [
      'unknown key',
      () => h.app.inject({ method: 'POST', url: '/v1/store/orders', headers: bearer('ps_test_unknown') }),
    ],
    [
      'malformed header',
      () => h.app.inject({ method: 'DELETE', url: '/v1/store/orders/1', headers: { authorization: 'Basic eDp5' } }),
    ],
  ]
  let expected = 60
  for (const [what, send] of cases) {
    const response = await send()
    assert.equal(response.statusCode, 401, what)
    const headers = limitHeaders(response)
    assert.equal(headers.policy, ADDRESS_POLICY, what)
    assert.equal(headers.remaining, --expected, what)
  }
})
