// The exact values of X-RateLimit-*, RateLimit-Policy and RateLimit: they describe the window with the fewest
// requests left (ties: the shorter), Reset is that window's end in epoch seconds, Remaining counts this request.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness } from '../../helpers/harness.js'
import { epoch, expect429, FREE_POLICY, limitHeaders, list, spend } from './support.js'

test(
  'first request of a free account at 00:00:30Z: ' + 'Limit 60, Remaining 59, Reset 00:01:00, both IETF headers',
  async (t) => {
    const h = await startHarness(t, { now: new Date('2027-01-01T00:00:30Z') })
    const { key } = await h.newAccount()
    const res = await list(h, key)
    assert.equal(res.statusCode, 200)
    assert.deepEqual(limitHeaders(res), {
      limit: 60,
      remaining: 59,
      reset: epoch('2027-01-01T00:01:00Z'),
      policy: FREE_POLICY,
      rateLimit: '"minute";r=59;t=30',
    })
  },
)

test('Remaining counts down by one per request, this one included, and stops at 0 on the 429', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T00:00:30Z') })
  const { key } = await h.newAccount()
  for (let i = 1; i <= 60; i++) {
    const headers = limitHeaders(await list(h, key))
    assert.equal(headers.remaining, 60 - i, `request ${i}`)
    assert.equal(headers.rateLimit, `"minute";r=${60 - i};t=30`)
  }
  for (let i = 0; i < 3; i++) {
    const refused = await list(h, key)
    expect429(refused, 'rate_limit_exceeded')
    assert.deepEqual(limitHeaders(refused), {
      limit: 60,
      remaining: 0,
      reset: epoch('2027-01-01T00:01:00Z'),
      policy: FREE_POLICY,
      rateLimit: '"minute";r=0;t=30',
    })
  }
})

test('the day window binds when it has fewer left: enterprise 100/min, 5/day after 3 requests', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-03-10T15:20:45Z') })
  const { key } = await h.newAccount({ plan: 'enterprise', perMinute: 100, perDay: 5 })
  await spend(h, key, 2)
  const res = await list(h, key)
  assert.equal(res.statusCode, 200)
  const toMidnight = epoch('2027-03-11T00:00:00Z') - epoch('2027-03-10T15:20:45Z')
  assert.deepEqual(limitHeaders(res), {
    limit: 5,
    remaining: 2,
    reset: epoch('2027-03-11T00:00:00Z'),
    policy: '"minute";q=100;w=60, "day";q=5;w=86400',
    rateLimit: `"day";r=2;t=${toMidnight}`,
  })
})

test('a tie goes to the shorter window: enterprise 5/min, 5/day', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-03-10T15:20:45Z') })
  const { key } = await h.newAccount({ plan: 'enterprise', perMinute: 5, perDay: 5 })
  const headers = limitHeaders(await list(h, key))
  assert.equal(headers.limit, 5)
  assert.equal(headers.remaining, 4)
  assert.equal(headers.reset, epoch('2027-03-10T15:21:00Z'))
  assert.equal(headers.rateLimit, '"minute";r=4;t=15')
})

test('the binding window switches to the day once it has fewer left than the minute', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-03-10T10:00:00Z') })
  const { key } = await h.newAccount({ plan: 'enterprise', perMinute: 4, perDay: 6 })
  await spend(h, key, 2)
  const first = limitHeaders(await list(h, key)) // minute 1 left, day 3 left
  assert.deepEqual([first.limit, first.remaining, first.reset], [4, 1, epoch('2027-03-10T10:01:00Z')])
  h.clock.set(new Date('2027-03-10T10:01:10Z'))
  const second = limitHeaders(await list(h, key)) // minute 3 left, day 2 left
  assert.deepEqual([second.limit, second.remaining, second.reset], [6, 2, epoch('2027-03-11T00:00:00Z')])
  assert.match(second.rateLimit, /^"day";r=2;t=\d+$/)
})

test('Reset and t at window edges: exactly on a boundary the window is a full minute; t is rounded up', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T00:01:00.000Z') })
  const { key } = await h.newAccount()
  const onBoundary = limitHeaders(await list(h, key))
  assert.equal(onBoundary.reset, epoch('2027-01-01T00:02:00Z'))
  assert.equal(onBoundary.rateLimit, '"minute";r=59;t=60')
  h.clock.set(new Date('2027-01-01T00:01:59.400Z'))
  const nearEnd = limitHeaders(await list(h, key))
  assert.equal(nearEnd.reset, epoch('2027-01-01T00:02:00Z'))
  assert.equal(nearEnd.rateLimit, '"minute";r=58;t=1')
})

test('requests without a valid key show the per-address window (RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE)', async (t) => {
  const h = await startHarness(t, {
    now: new Date('2027-01-01T00:00:20Z'),
    env: { RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '25' },
  })
  const res = await h.app.inject({ url: '/v1/pets', headers: bearer('ps_test_nope') })
  assert.equal(res.statusCode, 401)
  assert.deepEqual(limitHeaders(res), {
    limit: 25,
    remaining: 24,
    reset: epoch('2027-01-01T00:01:00Z'),
    policy: '"minute";q=25;w=60',
    rateLimit: '"minute";r=24;t=40',
  })
})
