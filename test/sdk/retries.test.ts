// Retries of @petstore/sdk through a fault proxy in front of the real service: a lost answer, 503s, 429 with
// Retry-After, a ban, timeouts; the same Idempotency-Key on every attempt of a call, and never a retry of what
// issue 17 says must not be retried. Back-off is the real one (0.5 s, 1 s …), so these tests take seconds.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  ConflictError,
  ConnectionError,
  InternalServerError,
  RateLimitError,
  TimeoutError,
} from '../../sdk/src/index.js'
import { errorAnswer, startFaultProxy } from '../helpers/fault-proxy.js'
import { startHarness } from '../helpers/harness.js'
import { petsOf } from '../helpers/pets.js'
import { clientOf, thrownBy } from '../helpers/sdk.js'

async function proxied(t: Parameters<typeof startHarness>[0]) {
  const h = await startHarness(t, { listen: true })
  const account = await h.newAccount()
  const proxy = await startFaultProxy(t, h.baseUrl)
  return { h, account, proxy, ...clientOf(proxy.origin, account.key) }
}

const keysOf = (requests: { headers: Record<string, unknown> }[]) => requests.map((r) => r.headers['idempotency-key'])

test('a create whose first answer is lost is retried with the same key, and the pet exists exactly once', async (t) => {
  const { h, account, proxy, ps, responses } = await proxied(t)
  proxy.next({ drop: 'after-answer' })
  const pet = await ps.pets.create({ name: 'Rex', categoryId: 1 })
  const rows = await petsOf(h, account.accountId)
  assert.deepEqual(
    rows.map((r) => BigInt(r.id)),
    [pet.id],
  )
  assert.equal(proxy.requests.length, 2)
  const [first, second] = keysOf(proxy.requests)
  assert.match(String(first), /^"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$/)
  assert.equal(second, first)
  assert.deepEqual(
    responses.map((r) => [r.status, r.attempt]),
    [[201, 2]],
    'the lost answer was never seen',
  )
  const listed = []
  for await (const p of ps.pets.list()) listed.push(p)
  assert.deepEqual(listed, [pet])
})

test(
  '503 is retried with exponential back-off (0.5 s, ' + 'then 1 s), then succeeds; onResponse sees each attempt',
  async (t) => {
    const { proxy, ps, responses } = await proxied(t)
    proxy.next(errorAnswer(503, 'service_unavailable'), errorAnswer(503, 'service_unavailable'))
    const started = performance.now()
    await ps.pets.create({ name: 'Rex', categoryId: 1 })
    const elapsed = performance.now() - started
    assert.ok(elapsed >= 0.75 * 1500 && elapsed < 6000, `waited ${elapsed} ms (0.5 s + 1 s less up to 25 %)`)
    assert.deepEqual(
      responses.map((r) => [r.status, r.attempt]),
      [
        [503, 1],
        [503, 2],
        [201, 3],
      ],
    )
    assert.equal(responses[0]!.rateLimit, undefined, 'the proxy sends no quota headers')
    assert.equal(new Set(keysOf(proxy.requests)).size, 1, 'one key for every attempt')
  },
)

test('after maxRetries the last error is thrown: InternalServerError for 500, 502, 503, 504', async (t) => {
  const { proxy, ps } = await proxied(t)
  proxy.next(errorAnswer(500, 'internal_error'), errorAnswer(502, 'bad_gateway'), errorAnswer(504, 'gateway_timeout'))
  const err = await thrownBy(() => ps.pets.listPage())
  assert.ok(err instanceof InternalServerError)
  assert.equal(err.status, 504)
  assert.equal(proxy.requests.length, 3, 'one try and two retries')
})

test('maxRetries: 0 throws at once', async (t) => {
  const { proxy, ps, account } = await proxied(t)
  proxy.next(errorAnswer(503, 'service_unavailable'))
  const { ps: once } = clientOf(proxy.origin, account.key, { maxRetries: 0 })
  const err = await thrownBy(() => once.pets.create({ name: 'Rex', categoryId: 1 }))
  assert.ok(err instanceof InternalServerError && err.code === 'service_unavailable')
  assert.equal(proxy.requests.length, 1, 'no retry')
  // Per call too.
  proxy.next(errorAnswer(503, 'service_unavailable'))
  await assert.rejects(ps.pets.listPage({}, { maxRetries: 0 }), InternalServerError)
  assert.equal(proxy.requests.length, 2)
})

test('a 429 with Retry-After: 1 is waited out (1 s), then the call succeeds', async (t) => {
  const { proxy, ps, responses } = await proxied(t)
  proxy.next(errorAnswer(429, 'rate_limit_exceeded', { 'retry-after': '1' }))
  const started = performance.now()
  const page = await ps.pets.listPage()
  const elapsed = performance.now() - started
  assert.deepEqual(page.data, [])
  assert.ok(elapsed >= 1000 && elapsed < 5000, `waited ${elapsed} ms`)
  assert.deepEqual(
    responses.map((r) => r.status),
    [429, 200],
  )
})

test('a Retry-After over 60 s is not waited: RateLimitError at once, with retryAfter', async (t) => {
  const { proxy, ps } = await proxied(t)
  proxy.next(errorAnswer(429, 'rate_limit_exceeded', { 'retry-after': '61' }))
  const err = await thrownBy(() => ps.pets.listPage())
  assert.ok(err instanceof RateLimitError)
  assert.equal(err.retryAfter, 61)
  assert.equal(err.banned, false)
  assert.equal(proxy.requests.length, 1)
})

test('temporarily_banned is never retried, even with a short Retry-After', async (t) => {
  const { proxy, ps } = await proxied(t)
  proxy.next(errorAnswer(429, 'temporarily_banned', { 'retry-after': '1' }))
  const err = await thrownBy(() => ps.pets.create({ name: 'Rex', categoryId: 1 }))
  assert.ok(err instanceof RateLimitError)
  assert.equal(err.banned, true)
  assert.equal(err.retryAfter, 1)
  assert.equal(proxy.requests.length, 1)
})

test('409 idempotency_key_in_progress is retried with the same key; any other 409 is not', async (t) => {
  const { proxy, ps } = await proxied(t)
  proxy.next(errorAnswer(409, 'idempotency_key_in_progress'))
  await ps.pets.create({ name: 'Rex', categoryId: 1 })
  assert.equal(proxy.requests.length, 2)
  assert.equal(new Set(keysOf(proxy.requests)).size, 1)
  proxy.next(errorAnswer(409, 'something_else'))
  const err = await thrownBy(() => ps.pets.create({ name: 'Rex', categoryId: 1 }))
  assert.ok(err instanceof ConflictError && err.code === 'something_else')
  assert.equal(proxy.requests.length, 3)
})

test('408 is retried; 400, 404 and 422 are not', async (t) => {
  const { proxy, ps } = await proxied(t)
  proxy.next(errorAnswer(408, 'request_timeout'))
  await ps.pets.listPage()
  assert.equal(proxy.requests.length, 2)
  for (const [status, code] of [
    [400, 'invalid_body'],
    [404, 'pet_not_found'],
    [422, 'idempotency_key_reused'],
  ] as const) {
    const before: number = proxy.requests.length
    proxy.next(errorAnswer(status, code))
    const err = await thrownBy(() => ps.pets.listPage())
    assert.equal((err as { status: number }).status, status)
    assert.equal(proxy.requests.length, before + 1, `${status} is not retried`)
  }
})

test("no answer within timeoutMs is a TimeoutError, retried; the last attempt's is thrown", async (t) => {
  const { proxy, account } = await proxied(t)
  const { ps } = clientOf(proxy.origin, account.key, { timeoutMs: 150, maxRetries: 1 })
  proxy.next({ hang: true }, { hang: true })
  const err = await thrownBy(() => ps.pets.listPage())
  assert.ok(err instanceof TimeoutError)
  assert.ok(err instanceof ConnectionError, 'a timeout is a kind of missing answer')
  assert.equal(err.status, undefined)
  assert.equal(proxy.requests.length, 2)
  proxy.next({ hang: true })
  // A hung attempt, then an answer (a longer timeout for this call, so a busy machine cannot fail it).
  assert.equal((await ps.pets.listPage({}, { timeoutMs: 1000 })).data.length, 0)
  assert.equal(proxy.requests.length, 4)
})

test('a refused connection is a ConnectionError after the retries', async (t) => {
  const { account } = await proxied(t)
  const { ps, responses } = clientOf('http://127.0.0.1:1', account.key, { maxRetries: 1 })
  const err = await thrownBy(() => ps.pets.listPage())
  assert.ok(err instanceof ConnectionError && !(err instanceof TimeoutError))
  assert.match(err.message, /GET http:\/\/127\.0\.0\.1:1\/v1\/pets/)
  assert.equal(responses.length, 0)
})

test("a caller's AbortSignal ends the call, also during a back-off, and is not retried", async (t) => {
  const { proxy, account } = await proxied(t)
  const controller = new AbortController()
  // Aborted when the 503 arrives, so during the 0.5 s back-off that follows it.
  const { ps } = clientOf(proxy.origin, account.key, { onResponse: () => controller.abort(new Error('stop')) })
  proxy.next(errorAnswer(503, 'service_unavailable'))
  await assert.rejects(ps.pets.listPage({}, { signal: controller.signal }), /stop/)
  assert.equal(proxy.requests.length, 1)
  await assert.rejects(ps.pets.listPage({}, { signal: controller.signal }), /stop/, 'an aborted signal sends nothing')
  assert.equal(proxy.requests.length, 1)
})
