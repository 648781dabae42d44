// Temporary bans: a key that sends more than RATE_LIMIT_BAN_THRESHOLD (30) refused requests within one minute
// window is banned for RATE_LIMIT_BAN_SECONDS (900): 429 temporarily_banned, Retry-After = seconds left.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness, type Harness } from '../../helpers/harness.js'
import { expect429, limitHeaders, list, spend } from './support.js'
import { testActor } from '../../helpers/actors.js'

const T0 = Date.parse('2027-01-01T00:00:10Z')

/** Uses the free minute up and sends `refusals` more requests, asserting each is a plain rate_limit_exceeded. */
async function overrun(h: Harness, key: string, refusals: number): Promise<void> {
  await spend(h, key, 60)
  for (let i = 0; i < refusals; i++) expect429(await list(h, key), 'rate_limit_exceeded')
}

test(
  'the 31st refused request of a minute starts a 900 s ban; ' + 'later requests are banned with the seconds left',
  async (t) => {
    const h = await startHarness(t, { now: T0 })
    const { key } = await h.newAccount()
    await overrun(h, key, 30)
    const banned = await list(h, key)
    const first = expect429(banned, 'temporarily_banned')
    assert.equal(first.retryAfter, 900)
    assert.match(first.body.message, /banned/)
    limitHeaders(banned)

    h.clock.set(T0 + 5 * 60_000) // a later minute: the quota is free again, the ban is not over
    const later = expect429(await list(h, key), 'temporarily_banned')
    assert.equal(later.retryAfter, 600)
    h.clock.set(T0 + 900_000 - 500)
    assert.equal(expect429(await list(h, key), 'temporarily_banned').retryAfter, 1)

    h.clock.set(T0 + 900_000)
    const res = await list(h, key)
    assert.equal(res.statusCode, 200, 'admitted once the ban is over')
    assert.equal(limitHeaders(res).remaining, 59, 'requests sent while banned were not counted')
  },
)

test('30 refusals are tolerated: the key is only limited, and admitted in the next minute', async (t) => {
  const h = await startHarness(t, { now: T0 })
  const { key } = await h.newAccount()
  await overrun(h, key, 30)
  h.clock.set(Date.parse('2027-01-01T00:01:00Z'))
  assert.equal((await list(h, key)).statusCode, 200)
})

test('refusals count per minute window: 30 in one minute and 30 in the next ban nobody', async (t) => {
  const h = await startHarness(t, { now: T0 })
  const { key } = await h.newAccount()
  await overrun(h, key, 30)
  h.clock.set(Date.parse('2027-01-01T00:01:00Z'))
  await overrun(h, key, 30)
  h.clock.set(Date.parse('2027-01-01T00:02:00Z'))
  assert.equal((await list(h, key)).statusCode, 200)
})

test('the ban is per key: another key of the same account is only limited, then admitted', async (t) => {
  const h = await startHarness(t, { now: T0 })
  const { key, accountId } = await h.newAccount()
  const other = await h.services.accounts.createApiKey({ actor: testActor, accountId, environment: 'test' })
  await overrun(h, key, 30)
  expect429(await list(h, key), 'temporarily_banned')
  expect429(await list(h, other.key), 'rate_limit_exceeded')
  h.clock.set(Date.parse('2027-01-01T00:01:00Z'))
  assert.equal((await list(h, other.key)).statusCode, 200)
  expect429(await list(h, key), 'temporarily_banned')
})

test('a banned key is refused on every operation', async (t) => {
  const h = await startHarness(t, { now: T0 })
  const { key } = await h.newAccount()
  await overrun(h, key, 30)
  expect429(await list(h, key), 'temporarily_banned')
  h.clock.set(Date.parse('2027-01-01T00:01:00Z'))
  const json = { ...bearer(key), 'content-type': 'application/json' }
  expect429(
    await h.app.inject({ method: 'POST', url: '/v1/pets', headers: json, payload: '{"name":"Rex","categoryId":1}' }),
    'temporarily_banned',
  )
  expect429(await h.app.inject({ url: '/v1/pets/1', headers: bearer(key) }), 'temporarily_banned')
  expect429(await h.app.inject({ url: '/v1/pets?limit=0', headers: bearer(key) }), 'temporarily_banned')
})

test('threshold and length are configurable: RATE_LIMIT_BAN_THRESHOLD=3, RATE_LIMIT_BAN_SECONDS=120', async (t) => {
  const h = await startHarness(t, { now: T0, env: { RATE_LIMIT_BAN_THRESHOLD: '3', RATE_LIMIT_BAN_SECONDS: '120' } })
  const { key } = await h.newAccount({ plan: 'enterprise', perMinute: 2, perDay: 100 })
  await spend(h, key, 2)
  for (let i = 0; i < 3; i++) expect429(await list(h, key), 'rate_limit_exceeded')
  assert.equal(expect429(await list(h, key), 'temporarily_banned').retryAfter, 120)
  h.clock.set(T0 + 119_000)
  assert.equal(expect429(await list(h, key), 'temporarily_banned').retryAfter, 1)
  h.clock.set(T0 + 120_000)
  assert.equal((await list(h, key)).statusCode, 200)
})

test('day-window refusals count towards the ban too', async (t) => {
  const h = await startHarness(t, { now: T0, env: { RATE_LIMIT_BAN_THRESHOLD: '2' } })
  const { key } = await h.newAccount({ plan: 'enterprise', perMinute: 100, perDay: 1 })
  await spend(h, key, 1)
  h.clock.set(T0 + 60_000)
  for (let i = 0; i < 2; i++) expect429(await list(h, key), 'rate_limit_exceeded')
  expect429(await list(h, key), 'temporarily_banned')
})

test('while banned, X-RateLimit-Reset, RateLimit and Retry-After all point at the end of the ban', async (t) => {
  // A ban that starts mid-second: its end is not on a whole second.
  const h = await startHarness(t, { now: T0 + 300 })
  const { key } = await h.newAccount()
  await overrun(h, key, 30)
  const banEnd = T0 + 300 + 900_000
  for (const at of [T0 + 300, T0 + 5 * 60_000 + 700, banEnd - 1]) {
    h.clock.set(at)
    const res = await list(h, key)
    const { retryAfter } = expect429(res, 'temporarily_banned')
    const headers = limitHeaders(res)
    assert.equal(headers.reset, Math.ceil(banEnd / 1000), 'Reset is the end of the ban (rounded up to a second)')
    assert.equal(Math.floor(at / 1000) + retryAfter, headers.reset, 'Date + Retry-After = Reset')
    assert.ok(at + retryAfter * 1000 >= banEnd, 'waiting Retry-After is never too early')
    assert.equal(headers.remaining, 0)
    assert.equal(headers.rateLimit, `"minute";r=0;t=${retryAfter}`)
  }
  h.clock.set(banEnd)
  assert.equal((await list(h, key)).statusCode, 200)
})
