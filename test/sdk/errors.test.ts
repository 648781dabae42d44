// Every error class of @petstore/sdk for the status the real service answers with: status, code, message,
// requestId and headers as the service sent them. (408, 409, 5xx come from the fault proxy: retries.test.ts.)
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  NotFoundError,
  PetstoreError,
  RateLimitError,
  UnprocessableEntityError,
} from '../../sdk/src/index.js'
import { startHarness } from '../helpers/harness.js'
import { clientOf, thrownBy } from '../helpers/sdk.js'

async function listening(t: Parameters<typeof startHarness>[0], env: NodeJS.ProcessEnv = {}) {
  const h = await startHarness(t, { listen: true, env })
  return { h, account: await h.newAccount() }
}

/** Asserts the class and fields of a thrown PetstoreError and returns it. */
function expectError<T extends PetstoreError>(
  err: unknown,
  Class: new (...args: never[]) => T,
  status: number,
  code: string,
): T {
  assert.ok(err instanceof Class, `expected ${Class.name}, got ${String(err)}`)
  assert.ok(err instanceof PetstoreError)
  assert.equal(err.name, Class.name)
  assert.equal(err.status, status)
  assert.equal(err.code, code)
  assert.ok(err.message.length > 0)
  assert.match(err.requestId ?? '', /^[0-9a-f-]{36}$/)
  assert.equal(err.headers.get('x-request-id'), err.requestId)
  return err
}

test('400 is BadRequestError naming the field', async (t) => {
  const { h, account } = await listening(t)
  const { ps } = clientOf(h.baseUrl, account.key)
  const err = expectError(
    await thrownBy(() => ps.pets.create({ name: '', categoryId: 1 })),
    BadRequestError,
    400,
    'invalid_body',
  )
  assert.match(err.message, /name/)
  expectError(await thrownBy(() => ps.pets.listPage({ cursor: 'forged' })), BadRequestError, 400, 'invalid_cursor')
  expectError(
    await thrownBy(() => ps.pets.create({ name: 'Rex', categoryId: 1 }, { idempotencyKey: 'é' })),
    BadRequestError,
    400,
    'invalid_idempotency_key',
  )
})

test('401 is AuthenticationError', async (t) => {
  const { h } = await listening(t)
  const { ps } = clientOf(h.baseUrl, 'ps_test_not-a-key')
  const err = expectError(await thrownBy(() => ps.pets.listPage()), AuthenticationError, 401, 'invalid_api_key')
  assert.match(err.headers.get('www-authenticate') ?? '', /^Bearer realm="petstore"/)
})

test('404 is NotFoundError', async (t) => {
  const { h, account } = await listening(t)
  const { ps } = clientOf(h.baseUrl, account.key)
  expectError(await thrownBy(() => ps.pets.get(123n)), NotFoundError, 404, 'pet_not_found')
})

test('422 is UnprocessableEntityError: a key used again with another body', async (t) => {
  const { h, account } = await listening(t)
  const { ps } = clientOf(h.baseUrl, account.key)
  await ps.pets.create({ name: 'Rex', categoryId: 1 }, { idempotencyKey: 'k-1' })
  expectError(
    await thrownBy(() => ps.pets.create({ name: 'Max', categoryId: 1 }, { idempotencyKey: 'k-1' })),
    UnprocessableEntityError,
    422,
    'idempotency_key_reused',
  )
})

test(
  '429 is RateLimitError with retryAfter; maxRetries: ' + '0 throws at once; a ban says banned and is not retried',
  async (t) => {
    const { h } = await listening(t, { RATE_LIMIT_BAN_THRESHOLD: '1', RATE_LIMIT_BAN_SECONDS: '900' })
    const account = await h.newAccount({ plan: 'enterprise', perMinute: 1, perDay: 100 })
    await clientOf(h.baseUrl, account.key).ps.pets.listPage()
    // A new client each time: a client that saw the minute used up would not send (its gate waits for the reset).
    const { ps, responses } = clientOf(h.baseUrl, account.key, { maxRetries: 0 })
    const limited = expectError(await thrownBy(() => ps.pets.listPage()), RateLimitError, 429, 'rate_limit_exceeded')
    assert.equal(limited.retryAfter, 60, 'the manual clock stands at the start of a minute')
    assert.equal(limited.banned, false)
    assert.deepEqual(responses.at(-1)!.rateLimit, { limit: 1, remaining: 0, reset: new Date('2027-01-01T00:01:00Z') })
    // the second refusal within the minute: over the threshold of 1
    await thrownBy(() => clientOf(h.baseUrl, account.key, { maxRetries: 0 }).ps.pets.listPage())
    // The ban's Retry-After (900 s) is over 60 s; with retries allowed, it is still thrown at once.
    const { ps: patient, responses: seen } = clientOf(h.baseUrl, account.key, { maxRetries: 2 })
    const banned = expectError(await thrownBy(() => patient.pets.listPage()), RateLimitError, 429, 'temporarily_banned')
    assert.equal(banned.banned, true)
    assert.equal(banned.retryAfter, 900)
    assert.equal(seen.length, 1)
    // The same client again: its gate is closed by the ban and throws at once, sending nothing.
    const again = await thrownBy(() => patient.pets.listPage())
    assert.ok(again instanceof RateLimitError && again.banned, String(again))
    assert.ok(again.retryAfter! > 60 && again.retryAfter! <= 900, `retryAfter ${again.retryAfter}`)
    assert.equal(again.requestId, banned.requestId, 'it names the answer that closed the gate')
    assert.equal(seen.length, 1)
  },
)

test('410 after the sunset of getPet, 413 for a body over the limit: PetstoreError with status and code', async (t) => {
  const { h, account } = await listening(t, {
    PETSTORE_GETPET_DEPRECATED_AT: '2026-01-01T00:00:00Z',
    PETSTORE_GETPET_SUNSET: '2026-06-01T00:00:00Z',
  })
  const { ps } = clientOf(h.baseUrl, account.key)
  const gone = await thrownBy(() => ps.pets.get(1))
  expectError(gone, PetstoreError, 410, 'operation_sunset')
  assert.equal(Object.getPrototypeOf(gone), PetstoreError.prototype, 'no subclass for 410')
  assert.equal((gone as PetstoreError).headers.get('sunset'), 'Mon, 01 Jun 2026 00:00:00 GMT')
  const tooLarge = await thrownBy(() => ps.pets.create({ name: 'x'.repeat(20_000), categoryId: 1 }))
  expectError(tooLarge, PetstoreError, 413, 'payload_too_large')
  assert.equal(Object.getPrototypeOf(tooLarge), PetstoreError.prototype)
})

test("5xx without the API's body is still an InternalServerError with its status (a proxy's error page)", async () => {
  let calls = 0
  const fetchStub: typeof fetch = async () => {
    calls++
    return new Response('<html>Bad Gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } })
  }
  const { ps } = clientOf('http://127.0.0.1:9', 'ps_test_x', { fetch: fetchStub, maxRetries: 0 })
  const err = await thrownBy(() => ps.pets.listPage())
  assert.ok(err instanceof InternalServerError)
  assert.equal(err.status, 502)
  assert.equal(err.code, undefined)
  assert.equal(calls, 1)
})
