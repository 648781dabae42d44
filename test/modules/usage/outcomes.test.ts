// Usage by outcome through real HTTP (a listening server and fetch): success (2xx/3xx), client error (4xx other
// than 429), refused by the limit (429) and server error (5xx), per key and per account, per minute and per day,
// on both listeners. The 5xx is real: a database trigger makes the insert fail (a 500). A 503 "database
// unavailable" after the key was accepted cannot be caused honestly on SQLite (the key look-up needs the same
// database); it takes the same `status >= 500` branch, checked on the buffer below.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createUsageBuffer } from '../../../src/modules/usage/usage-buffer.js'
import { refuseInserts } from '../../helpers/backend.js'
import { startHarness } from '../../helpers/harness.js'
import { startMessagesHarness } from '../../helpers/messages-harness.js'
import { testActor } from '../../helpers/actors.js'

const T0 = Date.parse('2027-01-10T12:00:30Z')
const MINUTE = 60_000
const last = <T>(list: T[]) => list[list.length - 1]!
const zero = { success: 0, clientErrors: 0, refused: 0, serverErrors: 0 }

/** One request over HTTP with the key; returns the status after reading the body. */
function caller(baseUrl: string, key: string) {
  return async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<number> => {
    const response = await fetch(baseUrl + path, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    await response.arrayBuffer()
    return response.status
  }
}

test(
  'each request with a valid key counts under its outcome, ' + 'per key and per account, per minute and per day',
  async (t) => {
    const h = await startHarness(t, { now: T0, listen: true })
    // Five requests a minute: the two successes, the 400, the 404 and the 500 use them up; the next two are refused.
    const a = await h.newAccount({ plan: 'enterprise', perMinute: 5, perDay: 100 })
    const quiet = await h.services.accounts.createApiKey({
      actor: testActor,
      accountId: a.accountId,
      environment: 'test',
      name: 'quiet',
    })
    const call = caller(h.baseUrl, a.key)

    assert.equal(await call('GET', '/v1/pets'), 200)
    assert.equal(await call('POST', '/v1/pets', { name: 'Rex', categoryId: 1 }), 201)
    assert.equal(await call('POST', '/v1/pets', { name: 'Rex' }), 400, 'a body without categoryId')
    assert.equal(await call('GET', '/v1/pets/987654'), 404, 'an unknown pet')
    const allow = await refuseInserts(h.handle.db, 'pets')
    assert.equal(await call('POST', '/v1/pets', { name: 'Rex', categoryId: 1 }), 500, 'the database refused the insert')
    await allow()
    assert.equal(await call('GET', '/v1/pets'), 429)
    assert.equal(
      await call('POST', '/v1/pets', { name: 'Rex' }),
      429,
      'refused by the limit before the body is read: not a client error',
    )
    assert.equal(await caller(h.baseUrl, `${a.key}x`)('GET', '/v1/pets'), 401, 'no valid key: counted for nobody')
    h.clock.advance(MINUTE)
    assert.equal(await caller(h.baseUrl, quiet.key)('GET', '/v1/pets'), 200)

    const now = h.clock.now()
    const busy = { success: 2, clientErrors: 2, refused: 2, serverErrors: 1 }
    const quietOne = { ...zero, success: 1 }
    const account = await h.services.usage.perMinute({ accountId: a.accountId, now })
    assert.deepEqual(account.slice(-2), [
      { at: '2027-01-10T12:00:00.000Z', ...busy },
      { at: '2027-01-10T12:01:00.000Z', ...quietOne },
    ])
    assert.ok(
      account.slice(0, -2).every((p) => Object.values({ ...p, at: 0 }).every((n) => n === 0)),
      'zero-filled',
    )
    assert.deepEqual((await h.services.usage.perMinute({ accountId: a.accountId, keyId: a.keyId, now })).slice(-2), [
      { at: '2027-01-10T12:00:00.000Z', ...busy },
      { at: '2027-01-10T12:01:00.000Z', ...zero },
    ])
    assert.deepEqual((await h.services.usage.perMinute({ accountId: a.accountId, keyId: quiet.id, now })).slice(-2), [
      { at: '2027-01-10T12:00:00.000Z', ...zero },
      { at: '2027-01-10T12:01:00.000Z', ...quietOne },
    ])
    assert.deepEqual(last(await h.services.usage.perDay({ accountId: a.accountId, now })), {
      at: '2027-01-10T00:00:00.000Z',
      success: 3,
      clientErrors: 2,
      refused: 2,
      serverErrors: 1,
    })
    assert.deepEqual(last(await h.services.usage.perDay({ accountId: a.accountId, keyId: a.keyId, now })), {
      at: '2027-01-10T00:00:00.000Z',
      ...busy,
    })
    assert.deepEqual(last(await h.services.usage.perDay({ accountId: a.accountId, keyId: quiet.id, now })), {
      at: '2027-01-10T00:00:00.000Z',
      ...quietOne,
    })

    // The rows keep `admitted` as every request the limiter let through, so rows written before outcomes stay right.
    const rows = await h.handle.db
      .selectFrom('usage_days')
      .select(['admitted', 'refused', 'client_errors', 'server_errors'])
      .where('key_id', '=', a.keyId)
      .execute()
    assert.deepEqual(
      rows.map((r) => [r.admitted, r.refused, r.client_errors, r.server_errors].map(Number)),
      [[5, 2, 2, 1]],
    )
  },
)

test('rows written before outcomes were recorded read as successes', async (t) => {
  const h = await startHarness(t, { now: T0 })
  const a = await h.newAccount()
  // An old row: admitted and refused only, the outcome columns at their default.
  await h.handle.db
    .insertInto('usage_days')
    .values({
      key_id: a.keyId,
      account_id: a.accountId,
      day: '2027-01-10T00:00:00.000Z',
      admitted: 7n,
      refused: 1n,
    } as never)
    .execute()
  assert.deepEqual(last(await h.services.usage.perDay({ accountId: a.accountId, now: h.clock.now() })), {
    at: '2027-01-10T00:00:00.000Z',
    ...zero,
    success: 7,
    refused: 1,
  })
})

test('the messages listener counts by outcome too, into the same series', async (t) => {
  const h = await startMessagesHarness(t, { listen: true, now: T0 })
  const a = await h.newAccount({ plan: 'enterprise', perMinute: 3, perDay: 100 })
  const call = caller(h.baseUrl, a.key)
  assert.equal(await call('POST', '/messages', { message: 'hello' }), 202)
  assert.equal(await call('POST', '/messages', { text: 'hello' }), 400)
  assert.equal(await call('GET', '/messages/msg_unknown'), 404)
  assert.equal(await call('POST', '/messages', { message: 'hello' }), 429)
  assert.deepEqual(last(await h.services.usage.perMinute({ accountId: a.accountId, now: h.clock.now() })), {
    at: '2027-01-10T12:00:00.000Z',
    success: 1,
    clientErrors: 2,
    refused: 1,
    serverErrors: 0,
  })
})

test(
  'the buffer sorts statuses: 2xx and 3xx success, ' + '4xx client error, 429 refused, 5xx (503 too) server error',
  () => {
    const buffer = createUsageBuffer()
    for (const status of [200, 201, 204, 304, 400, 401, 404, 409, 413, 422, 429, 500, 503])
      buffer.record({ accountId: 'acct_1', keyId: 'key_1', status, at: T0 })
    assert.deepEqual(buffer.take(), [
      {
        accountId: 'acct_1',
        keyId: 'key_1',
        minute: Date.parse('2027-01-10T12:00:00Z'),
        admitted: 12,
        refused: 1,
        clientErrors: 6,
        serverErrors: 2,
      },
    ])
  },
)
