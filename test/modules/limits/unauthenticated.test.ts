// Requests without a valid key (401s) and unknown paths are limited per client address, so key guessing is
// throttled too: RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE (default 60), then 429 instead of 401.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, errorOf, startHarness } from '../../helpers/harness.js'
import { expect429, limitHeaders, list } from './support.js'

const guess = (h: Awaited<ReturnType<typeof startHarness>>, i: number, remoteAddress = '127.0.0.1') =>
  h.app.inject({ url: '/v1/pets', headers: bearer(`ps_test_guess${i}`), remoteAddress })

test('the 61st bad-key request of a minute gets 429 rate_limit_exceeded instead of 401', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T00:00:20Z') })
  for (let i = 0; i < 60; i++) {
    const res = await guess(h, i)
    assert.equal(res.statusCode, 401, `guess ${i + 1}`)
    assert.equal(errorOf(res).code, 'invalid_api_key')
    assert.equal(limitHeaders(res).remaining, 59 - i)
  }
  const refused = await guess(h, 60)
  const { body, retryAfter } = expect429(refused, 'rate_limit_exceeded')
  assert.match(body.message, /per minute/)
  assert.equal(retryAfter, 40)
  assert.equal(refused.headers['www-authenticate'], undefined, 'a 429, not a 401 challenge')
})

test('missing and malformed Authorization headers, unknown paths and 405s share the address budget', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T00:00:00Z') })
  const senders = [
    () => h.app.inject({ url: '/v1/pets' }),
    () => h.app.inject({ url: '/v1/pets', headers: { authorization: 'Token abc' } }),
    () => h.app.inject({ url: '/no/such/path' }),
    () => h.app.inject({ method: 'PUT', url: '/v1/pets' }),
  ]
  for (let i = 0; i < 60; i++) assert.notEqual((await senders[i % 4]!()).statusCode, 429, `request ${i + 1}`)
  for (const send of senders) expect429(await send(), 'rate_limit_exceeded')
})

test('the limit is configurable: RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE=5 refuses the 6th', async (t) => {
  const h = await startHarness(t, { env: { RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '5' } })
  for (let i = 0; i < 5; i++) assert.equal((await guess(h, i)).statusCode, 401)
  expect429(await guess(h, 5), 'rate_limit_exceeded')
})

test('the next minute admits guesses again, and an address is never banned (there is no key to ban)', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T00:00:00Z') })
  for (let i = 0; i < 60; i++) await guess(h, i)
  for (let i = 0; i < 100; i++) expect429(await guess(h, i), 'rate_limit_exceeded')
  h.clock.set(new Date('2027-01-01T00:01:00Z'))
  assert.equal((await guess(h, 0)).statusCode, 401)
})

test('addresses are counted apart', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T00:00:00Z') })
  for (let i = 0; i < 60; i++) await guess(h, i, '203.0.113.7')
  expect429(await guess(h, 60, '203.0.113.7'), 'rate_limit_exceeded')
  const other = await guess(h, 61, '198.51.100.9')
  assert.equal(other.statusCode, 401)
  assert.equal(limitHeaders(other).remaining, 59)
})

test('a valid key is still served from an address that has used up its unauthenticated budget', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T00:00:00Z') })
  const { key } = await h.newAccount()
  for (let i = 0; i < 61; i++) await guess(h, i)
  expect429(await guess(h, 61), 'rate_limit_exceeded')
  const res = await list(h, key)
  assert.equal(res.statusCode, 200)
  assert.equal(
    limitHeaders(res).policy,
    '"minute";q=60;w=60, "day";q=1000;w=86400',
    "the account's windows, not the address's",
  )
  assert.equal(limitHeaders(res).remaining, 59)
})

test('bad-key requests count against the address, not against the account whose key was mistyped', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T00:00:00Z') })
  const { key } = await h.newAccount()
  const typo = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A')
  for (let i = 0; i < 10; i++)
    assert.equal((await h.app.inject({ url: '/v1/pets', headers: bearer(typo) })).statusCode, 401)
  assert.equal(limitHeaders(await list(h, key)).remaining, 59)
})
