// Fixed windows aligned to the UTC minute and the UTC day, checked and consumed together: a request refused by
// one window consumes nothing from the other, and a refused request consumes nothing at all.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startHarness } from '../../helpers/harness.js'
import { epoch, expect429, limitHeaders, list, spend, usedOf } from './support.js'

test('the minute window resets at the next UTC minute: 60 used at minute 0, admitted again at 00:01:00', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T00:00:10Z') })
  const { key } = await h.newAccount()
  await spend(h, key, 60)
  h.clock.set(new Date('2027-01-01T00:00:59.999Z'))
  expect429(await list(h, key), 'rate_limit_exceeded')
  h.clock.set(new Date('2027-01-01T00:01:00Z'))
  const res = await list(h, key)
  assert.equal(res.statusCode, 200)
  assert.deepEqual(limitHeaders(res), {
    limit: 60,
    remaining: 59,
    reset: epoch('2027-01-01T00:02:00Z'),
    policy: '"minute";q=60;w=60, "day";q=1000;w=86400',
    rateLimit: '"minute";r=59;t=60',
  })
})

test(
  'windows are aligned to the clock, not to the first request: ' + '60 at 00:00:50 leave only 10 s to wait',
  async (t) => {
    const h = await startHarness(t, { now: new Date('2027-01-01T00:00:50Z') })
    const { key } = await h.newAccount()
    await spend(h, key, 60)
    assert.equal(expect429(await list(h, key), 'rate_limit_exceeded').retryAfter, 10)
    h.clock.set(new Date('2027-01-01T00:01:00Z'))
    await spend(h, key, 60)
  },
)

test('a request refused by the minute window consumes nothing from the day window', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T10:00:00Z') })
  const { key, accountId } = await h.newAccount({ plan: 'enterprise', perMinute: 3, perDay: 5 })
  await spend(h, key, 3)
  for (let i = 0; i < 10; i++) expect429(await list(h, key), 'rate_limit_exceeded')
  assert.deepEqual(await usedOf(h, accountId), [3, 3])
  h.clock.set(new Date('2027-01-01T10:01:00Z'))
  await spend(h, key, 2)
  const { body } = expect429(await list(h, key), 'rate_limit_exceeded')
  assert.match(body.message, /per day/)
  assert.deepEqual(await usedOf(h, accountId), [2, 5])
})

test('a request refused by the day window consumes nothing from the minute window', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T10:00:00Z') })
  const { key, accountId } = await h.newAccount({ plan: 'enterprise', perMinute: 100, perDay: 5 })
  await spend(h, key, 5)
  h.clock.set(new Date('2027-01-01T10:05:00Z'))
  for (let i = 0; i < 8; i++) expect429(await list(h, key), 'rate_limit_exceeded')
  assert.deepEqual(await usedOf(h, accountId), [0, 5])
  h.clock.set(new Date('2027-01-02T00:00:00Z'))
  const res = await list(h, key)
  assert.equal(res.statusCode, 200, 'a new UTC day starts from zero')
  assert.deepEqual(await usedOf(h, accountId), [1, 1])
})

test('the day window resets at UTC midnight, not 24 h after the first request', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T23:59:00Z') })
  const { key } = await h.newAccount({ plan: 'enterprise', perMinute: 100, perDay: 3 })
  await spend(h, key, 3)
  expect429(await list(h, key), 'rate_limit_exceeded')
  h.clock.set(new Date('2027-01-02T00:00:00Z'))
  await spend(h, key, 3)
  const res = await list(h, key)
  expect429(res, 'rate_limit_exceeded')
  assert.equal(limitHeaders(res).reset, epoch('2027-01-03T00:00:00Z'))
})
