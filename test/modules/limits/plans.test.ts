// Quotas per plan (spec 8.2): free 60/1,000, pro 300/10,000, business 1,000/100,000, enterprise its own
// figures. Counted per account over all its keys; a plan change applies from the next request on.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startHarness } from '../../helpers/harness.js'
import { expect429, limitHeaders, list, spend, usedOf } from './support.js'
import { testActor } from '../../helpers/actors.js'

const PLANS = [
  { plan: 'free', perMinute: 60, perDay: 1_000 },
  { plan: 'pro', perMinute: 300, perDay: 10_000 },
  { plan: 'business', perMinute: 1_000, perDay: 100_000 },
]

for (const { plan, perMinute, perDay } of PLANS) {
  test(
    `${plan}: ${perMinute} requests per minute are admitted, ` +
      `the next is refused; the policy names ${perDay} per day`,
    async (t) => {
      const h = await startHarness(t, { now: new Date('2027-01-01T08:00:05Z') })
      const { key, accountId } = await h.newAccount({ plan })
      await spend(h, key, perMinute - 1)
      const last = await list(h, key)
      assert.equal(last.statusCode, 200)
      assert.deepEqual(limitHeaders(last), {
        limit: perMinute,
        remaining: 0,
        reset: Date.parse('2027-01-01T08:01:00Z') / 1000,
        policy: `"minute";q=${perMinute};w=60, "day";q=${perDay};w=86400`,
        rateLimit: '"minute";r=0;t=55',
      })
      expect429(await list(h, key), 'rate_limit_exceeded')
      assert.deepEqual(await usedOf(h, accountId), [perMinute, perMinute])
    },
  )
}

test('free: 1,000 requests per day spread over minutes are admitted, the 1,001st is refused per day', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T08:00:00Z') })
  const { key } = await h.newAccount()
  for (let minute = 0; minute < 17; minute++) {
    h.clock.set(Date.parse('2027-01-01T08:00:00Z') + minute * 60_000)
    await spend(h, key, minute < 16 ? 60 : 40)
  }
  const { body } = expect429(await list(h, key), 'rate_limit_exceeded')
  assert.match(body.message, /per day/)
  const headers = limitHeaders(await list(h, key))
  assert.deepEqual([headers.limit, headers.remaining], [1000, 0])
})

test('enterprise: the figures set on the account apply (7/min, 20/day)', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T08:00:00Z') })
  const { key } = await h.newAccount({ plan: 'enterprise', perMinute: 7, perDay: 20 })
  await spend(h, key, 7)
  expect429(await list(h, key), 'rate_limit_exceeded')
  h.clock.advance(60_000)
  await spend(h, key, 7)
  h.clock.advance(60_000)
  await spend(h, key, 6)
  const { body } = expect429(await list(h, key), 'rate_limit_exceeded')
  assert.match(body.message, /per day/)
})

test('the quota is per account: a second key of the account shares it, another account has its own', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T08:00:00Z') })
  const first = await h.newAccount()
  const second = await h.services.accounts.createApiKey({
    actor: testActor,
    accountId: first.accountId,
    environment: 'test',
  })
  const stranger = await h.newAccount()
  await spend(h, first.key, 30)
  await spend(h, second.key, 30)
  expect429(await list(h, first.key), 'rate_limit_exceeded')
  expect429(await list(h, second.key), 'rate_limit_exceeded')
  const other = await list(h, stranger.key)
  assert.equal(other.statusCode, 200)
  assert.equal(limitHeaders(other).remaining, 59)
  assert.deepEqual(await usedOf(h, first.accountId), [60, 60])
})

test('upgrading applies on the next request: a limited free account becomes pro and is admitted at once', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T08:00:00Z') })
  const { key, accountId } = await h.newAccount()
  await spend(h, key, 60)
  expect429(await list(h, key), 'rate_limit_exceeded')
  await h.services.accounts.setPlan({ actor: testActor, id: accountId, plan: 'pro' })
  const res = await list(h, key)
  assert.equal(res.statusCode, 200)
  const headers = limitHeaders(res)
  assert.deepEqual([headers.limit, headers.remaining], [300, 239], 'the 60 already counted stay counted')
})

test('downgrading applies on the next request: pro with 100 used this minute, now free, is refused', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T08:00:00Z') })
  const { key, accountId } = await h.newAccount({ plan: 'pro' })
  await spend(h, key, 100)
  await h.services.accounts.setPlan({ actor: testActor, id: accountId, plan: 'free' })
  const refused = await list(h, key)
  expect429(refused, 'rate_limit_exceeded')
  assert.deepEqual([limitHeaders(refused).limit, limitHeaders(refused).remaining], [60, 0])
  await h.services.accounts.setPlan({
    actor: testActor,
    id: accountId,
    plan: 'enterprise',
    perMinute: 101,
    perDay: 5000,
  })
  assert.equal((await list(h, key)).statusCode, 200, 'enterprise figures apply at once too')
  expect429(await list(h, key), 'rate_limit_exceeded')
})
