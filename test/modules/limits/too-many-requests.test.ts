// The 429 itself: the Error body with code rate_limit_exceeded and a message naming the window, and
// Retry-After in whole seconds ≥ 1 until the request would be admitted.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness } from '../../helpers/harness.js'
import { petsOf } from '../../helpers/pets.js'
import { expect429, list, spend } from './support.js'

test('minute exhausted: message names the minute, Retry-After is the seconds left of the minute', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T00:00:30Z') })
  const { key } = await h.newAccount()
  await spend(h, key, 60)
  const { body, retryAfter } = expect429(await list(h, key), 'rate_limit_exceeded')
  assert.match(body.message, /per minute/)
  assert.doesNotMatch(body.message, /per day/)
  assert.equal(retryAfter, 30)
  h.clock.set(new Date('2027-01-01T00:00:59.001Z'))
  assert.equal(expect429(await list(h, key), 'rate_limit_exceeded').retryAfter, 1, 'rounded up, never 0')
  h.clock.set(new Date('2027-01-01T00:01:00Z'))
  assert.equal((await list(h, key)).statusCode, 200, 'admitted once Retry-After has passed')
})

test('day exhausted: message names the day, Retry-After is the seconds to UTC midnight', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T10:00:00Z') })
  const { key } = await h.newAccount({ plan: 'enterprise', perMinute: 100, perDay: 5 })
  await spend(h, key, 5)
  const first = expect429(await list(h, key), 'rate_limit_exceeded')
  assert.match(first.body.message, /per day/)
  assert.equal(first.retryAfter, 14 * 3600)
  h.clock.set(new Date('2027-01-01T23:59:59.500Z'))
  assert.equal(expect429(await list(h, key), 'rate_limit_exceeded').retryAfter, 1)
})

test('both windows exhausted: Retry-After points at the later end (the day), not the minute', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T12:00:15Z') })
  const { key } = await h.newAccount({ plan: 'enterprise', perMinute: 2, perDay: 2 })
  await spend(h, key, 2)
  const { body, retryAfter } = expect429(await list(h, key), 'rate_limit_exceeded')
  assert.match(body.message, /per day/)
  assert.equal(retryAfter, 12 * 3600 - 15)
})

test('429 also answers POST and getPet, and nothing is created by a refused POST', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T12:00:00Z') })
  const { key, accountId } = await h.newAccount({ plan: 'enterprise', perMinute: 1, perDay: 100 })
  await spend(h, key, 1)
  const post = await h.app.inject({
    method: 'POST',
    url: '/v1/pets',
    headers: { ...bearer(key), 'content-type': 'application/json' },
    payload: '{"name":"Rex","categoryId":1}',
  })
  expect429(post, 'rate_limit_exceeded')
  expect429(await h.app.inject({ url: '/v1/pets/1', headers: bearer(key) }), 'rate_limit_exceeded')
  assert.deepEqual(await petsOf(h, accountId), [])
})
