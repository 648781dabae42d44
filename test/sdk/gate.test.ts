// The rate-limit gate's rules, each on a small scripted server (or the real service on its manual clock), in
// seconds: one request until the first answer, then as many as the quota allows; maxConcurrency; after a 429
// everyone waits and nothing in flight is sent twice; deadlineMs throws RateLimitError at once. The 100-call
// case on a free key against the real service is rate-limit-gate.test.ts (slow: real minutes).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { RateLimitError } from '../../sdk/src/index.js'
import { startHarness } from '../helpers/harness.js'
import { quotaHeaders, startScriptedServer } from '../helpers/scripted-server.js'
import { clientOf, thrownBy } from '../helpers/sdk.js'

const parallel = (n: number, call: () => PromiseLike<unknown>) => Promise.all(Array.from({ length: n }, call))

test('until the first answer one request at a time, then as many at once as the quota allows', async (t) => {
  const server = await startScriptedServer(t, { status: 200, headers: quotaHeaders(1000, 60, 1000), delayMs: 300 })
  const { ps } = clientOf(server.origin, 'ps_test_k')
  await parallel(10, () => ps.pets.listPage())
  assert.equal(server.requests[0]!.inFlight, 1)
  assert.equal(server.requests[1]!.inFlight, 1, 'the second waited for the first answer')
  assert.equal(Math.max(...server.requests.map((r) => r.inFlight)), 9, 'then the other nine at once')
})

test('maxConcurrency caps the requests in flight', async (t) => {
  const server = await startScriptedServer(t, { status: 200, headers: quotaHeaders(1000, 60, 1000), delayMs: 30 })
  const { ps } = clientOf(server.origin, 'ps_test_k', { maxConcurrency: 3 })
  await parallel(12, () => ps.pets.listPage())
  assert.equal(server.requests.length, 12)
  assert.equal(Math.max(...server.requests.map((r) => r.inFlight)), 3)
  assert.throws(() => clientOf(server.origin, 'ps_test_k', { maxConcurrency: 0 }), RangeError)
})

test('with 3 left in the window, 3 are sent and the rest wait for the reset', async (t) => {
  const server = await startScriptedServer(
    t,
    { status: 200, headers: quotaHeaders(3, 1), delayMs: 20 },
    { status: 200, headers: quotaHeaders(0, 1) },
    { status: 200, headers: quotaHeaders(59, 60) },
  )
  const { ps } = clientOf(server.origin, 'ps_test_k')
  const first = Date.now()
  await parallel(8, () => ps.pets.listPage())
  const beforeReset = server.requests.filter((r) => r.at - first < 900)
  assert.equal(beforeReset.length, 4, 'the first, then the 3 its answer allowed')
  assert.equal(server.requests.length, 8, 'nothing sent twice')
})

test(
  'after a 429 with Retry-After every call waits for it, ' + 'nothing in flight is sent twice, all succeed',
  async (t) => {
    const server = await startScriptedServer(
      t,
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 200, headers: quotaHeaders(50) },
    )
    const lines: string[] = []
    const logger = {
      debug: () => {},
      info: (l: string) => void lines.push(l),
      warn: (l: string) => void lines.push(l),
      error: () => {},
    }
    const { ps, responses } = clientOf(server.origin, 'ps_test_k', { logger, logLevel: 'info' })
    const pages = await parallel(5, () => ps.pets.listPage())
    assert.equal(pages.length, 5)
    assert.deepEqual(
      responses.map((r) => r.status),
      [429, 200, 200, 200, 200, 200],
      'the 429 was the probe; then one attempt per call',
    )
    const refusedAt = server.requests[0]!.at
    assert.ok(
      server.requests.slice(1).every((r) => r.at - refusedAt >= 1000),
      'nobody came back before Retry-After',
    )
    const retryCounts = server.requests.map((r) => r.headers['x-petstore-retry-count'] ?? 'none').sort()
    assert.deepEqual(
      retryCounts,
      ['1', 'none', 'none', 'none', 'none', 'none'],
      "the probe's retry says so, first attempts do not",
    )
    assert.match(String(server.requests[0]!.headers['user-agent']), /^petstore-sdk\/1\.0\.0 node\/\d+\.\d+\.\d+$/)
    assert.equal(
      lines.filter((l) => /waiting \d\.\d s for the rate limit \(scripted/.test(l)).length,
      5,
      'a wait line per call',
    )
    assert.match(
      lines[0]!,
      /^petstore: GET http:\/\/127\.0\.0\.1:\d+\/v1\/pets → 429 in \d+ ms \(attempt 1, request unknown\): scripted$/,
    )
  },
)

test(
  'deadlineMs: a wait for the reset that would end past ' + 'it throws RateLimitError at once, sending nothing',
  async (t) => {
    const h = await startHarness(t, { listen: true })
    const account = await h.newAccount({ plan: 'enterprise', perMinute: 1, perDay: 100 })
    const { ps, responses } = clientOf(h.baseUrl, account.key, { deadlineMs: 5_000 })
    const used = await ps.pets.listPage().withResponse()
    assert.equal(used.rateLimit?.remaining, 0)
    const started = performance.now()
    const err = await thrownBy(() => ps.pets.listPage())
    assert.ok(err instanceof RateLimitError, String(err))
    assert.equal(err.retryAfter, 60, 'the reset is 60 s away (the manual clock stands at :00)')
    assert.equal(err.code, 'rate_limit_exceeded')
    assert.equal(err.requestId, used.requestId, 'it names the answer that closed the gate')
    assert.match(err.message, /not sent; the rate limit resets in 60 s, past the deadline/)
    assert.ok(performance.now() - started < 2_000, 'at once, not after waiting')
    assert.equal(responses.length, 1, 'nothing sent')
    // Per call too, on a client without a deadline of its own; and checked like the constructor's.
    const { ps: patient } = clientOf(h.baseUrl, account.key)
    await patient.pets.listPage({}, { maxRetries: 0 }).catch(() => undefined)
    await assert.rejects(patient.pets.listPage({}, { deadlineMs: 100 }), RateLimitError)
    await assert.rejects(patient.pets.listPage({}, { deadlineMs: 0 }), RangeError)
    await assert.rejects(patient.pets.listPage({}, { timeoutMs: 0 }), RangeError)
    await assert.rejects(patient.pets.listPage({}, { maxRetries: -1 }), RangeError)
  },
)
