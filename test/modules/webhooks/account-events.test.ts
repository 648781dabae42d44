// The events that no row trigger records (issue 36), on the pass's backend: keys created, rolled and revoked, and
// accounts' plan changes, suspensions and reactivations in the change's own transaction; a key's ban and the day's
// quota crossing 80 % and 100 % (once each); a key expiring in 7 days and in 1 day (once each). Never a secret.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { recordExpiringKeys } from '../../../src/modules/accounts/key-expiry-events.js'
import { testActor } from '../../helpers/actors.js'
import { bearer, startHarness, type Harness } from '../../helpers/harness.js'
import { addEndpoint } from '../../helpers/webhooks.js'
import { pollUntil } from '../../helpers/within.js'

type Event = { id: string; type: string; data: Record<string, unknown> }
const eventsOf = async (h: Harness, key: string, type?: string): Promise<Event[]> => {
  const res = await h.app.inject({ url: `/v1/events?limit=100${type ? `&type=${type}` : ''}`, headers: bearer(key) })
  assert.equal(res.statusCode, 200, res.body)
  return res.json<Event[]>()
}

test("keys' and the account's changes are events; no secret is in them", async (t) => {
  const h = await startHarness(t)
  const { key, accountId } = await h.newAccount({ plan: 'business' })
  await addEndpoint(h, key)
  const accounts = h.services.accounts
  const made = await accounts.createApiKey({ actor: testActor, accountId, environment: 'test', name: 'ci' })
  const { created } = await accounts.rollApiKey({ keyId: made.id, graceSeconds: 60, actor: testActor })
  await accounts.revokeApiKey(created.id, { actor: testActor })
  await accounts.setPlan({ id: accountId, plan: 'pro', actor: testActor })
  await accounts.suspend({ accountId, reason: 'unpaid invoice', actor: testActor })
  await accounts.reactivate({ accountId, actor: testActor })

  const events = (await eventsOf(h, key)).reverse()
  assert.deepEqual(
    events.map((e) => e.type),
    ['key.created', 'key.rolled', 'key.revoked', 'account.plan_changed', 'account.suspended', 'account.reactivated'],
  )
  const [createdEvent, rolled, revoked, plan, suspended] = events
  assert.deepEqual(
    [createdEvent!.data.id, createdEvent!.data.name, createdEvent!.data.state],
    [made.id, 'ci', 'active'],
  )
  assert.deepEqual((rolled!.data.replaces as { id: string }).id, made.id)
  assert.deepEqual([revoked!.data.id, revoked!.data.state], [created.id, 'revoked'])
  assert.deepEqual([plan!.data.plan, (plan!.data.previous as { plan: string }).plan], ['pro', 'business'])
  assert.equal(suspended!.data.suspensionReason, 'unpaid invoice')
  const text = JSON.stringify(events)
  for (const secret of [made.key, created.key, key]) assert.ok(!text.includes(secret.slice(8)), 'no key secret')
})

test('the day crossing 80 % and 100 % of the quota is an event once each; a ban is an event', async (t) => {
  const h = await startHarness(t, { env: { RATE_LIMIT_BAN_THRESHOLD: '2' } })
  const { key } = await h.newAccount({ plan: 'enterprise', perMinute: 1000, perDay: 10 })
  await addEndpoint(h, key)
  // Adding the endpoint was request 1 of 10; 8 and 10 cross the thresholds, 11 on are refused, 13 starts the ban.
  for (let i = 0; i < 14; i++) await h.app.inject({ url: '/v1/pets', headers: bearer(key) })
  const eventsFor = () => h.handle.db.selectFrom('webhook_events').select(['type', 'data']).orderBy('seq').execute()
  const events = await pollUntil('the limit events', async () => {
    const rows = await eventsFor()
    return rows.length >= 3 ? rows : undefined
  })
  const quota = events.filter((e) => e.type === 'quota.threshold').map((e) => JSON.parse(e.data))
  assert.deepEqual(
    quota.map((q) => [q.threshold, q.used, q.limit]),
    [
      [80, 8, 10],
      [100, 10, 10],
    ],
  )
  assert.match(quota[0].day, /^\d{4}-\d{2}-\d{2}$/)
  const bans = events.filter((e) => e.type === 'key.banned').map((e) => JSON.parse(e.data))
  assert.equal(bans.length, 1)
  assert.ok(Date.parse(bans[0].bannedUntil) > h.clock.now())
})

test('a key expiring is an event 7 days and 1 day before, once each', async (t) => {
  const h = await startHarness(t)
  const { key, accountId } = await h.newAccount({ plan: 'business' })
  await addEndpoint(h, key, undefined, ['key.expiring'])
  const expiresAt = new Date(h.clock.now() + 3 * 86_400_000).toISOString()
  const expiring = await h.services.accounts.createApiKey({
    actor: testActor,
    accountId,
    environment: 'test',
    expiresAt,
  })
  const run = () => recordExpiringKeys({ db: h.handle.db, engine: h.handle.engine, clock: h.clock })
  await run()
  await run()
  assert.deepEqual(
    (await eventsOf(h, key)).map((e) => [e.data.id, e.data.expiresIn]),
    [[expiring.id, '7d']],
  )
  h.clock.advance(2.5 * 86_400_000)
  await run()
  await run()
  assert.deepEqual(
    (await eventsOf(h, key)).map((e) => e.data.expiresIn),
    ['1d', '7d'],
  )
})
