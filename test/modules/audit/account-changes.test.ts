// Every change of the accounts service writes one audit entry in its own transaction (actor, action, target, before
// and after), a change that changes nothing writes none, and no entry holds a key's secret. A suspended account's
// keys are answered 403 account_suspended on /v1 and on the messages interface; reactivating restores them as they
// were; a plan change shows in X-RateLimit-Limit on the next request.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AccountInputError, AccountStateError } from '../../../src/modules/accounts/accounts.repository.js'
import type { AuditActor } from '../../../src/modules/audit/audit-event.js'
import { liftBan } from '../../../src/modules/limits/ban-lifting.js'
import { keySubject } from '../../../src/modules/limits/rate-limiter.js'
import { bearer, errorOf } from '../../helpers/harness.js'
import { postMessage, startMessagesHarness } from '../../helpers/messages-harness.js'

const operator: AuditActor = { kind: 'operator', operatorId: 'op_1', email: 'ops@example.com', address: '192.0.2.7' }
const cli: AuditActor = { kind: 'cli', user: 'alice' }

async function setUp(t: Parameters<typeof startMessagesHarness>[0]) {
  const h = await startMessagesHarness(t, { pets: true })
  const { accounts, audit } = h.services
  const entries = async (accountId: string) => audit.list({ accountId, limit: 100 })
  /** Every audit row as stored, as one text (to look for what must never be there). */
  const allRows = async () =>
    JSON.stringify(await h.handle.db.selectFrom('audit_events').selectAll().execute(), (_, v: unknown) =>
      typeof v === 'bigint' ? String(v) : v,
    )
  return { h, accounts, audit, entries, allRows, pets: h.pets!, messages: h.app }
}

test('each change writes one entry with its actor, action, target and what changed; never a secret', async (t) => {
  const { h, accounts, entries, allRows } = await setUp(t)
  const account = await accounts.createAccount({ name: 'acme', plan: 'free', actor: cli })
  const key = await accounts.createApiKey({ accountId: account.id, environment: 'test', name: 'ci', actor: cli })
  const rolled = await accounts.rollApiKey({ keyId: key.id, graceSeconds: 60, actor: operator })
  await accounts.revokeApiKey(rolled.created.id, { actor: operator })
  await accounts.setPlan({ id: account.id, plan: 'pro', actor: operator })
  await accounts.suspend({ accountId: account.id, reason: 'abuse of the API', actor: operator })
  await accounts.reactivate({ accountId: account.id, actor: operator })
  await accounts.deleteAccount(account.id, { actor: operator, reason: 'asked by its owner' })

  const list = await entries(account.id)
  assert.deepEqual(
    list.map((e) => e.action),
    [
      'account.deleted',
      'account.reactivated',
      'account.suspended',
      'account.plan_changed',
      'key.revoked',
      'key.rolled',
      'key.created',
      'account.created',
    ],
    'newest first',
  )
  const [deleted, reactivated, suspended, plan, revoked, roll, created, made] = list
  assert.deepEqual(made!.actor, { kind: 'cli', id: 'alice', email: null, address: null })
  assert.deepEqual(made!.target, { kind: 'account', id: account.id })
  assert.deepEqual(made!.changes, { after: { name: 'acme', plan: 'free', perMinute: 60, perDay: 1000 } })
  assert.deepEqual(created!.target, { kind: 'key', id: key.id })
  const allScopes = [
    'pets:read',
    'pets:write',
    'orders:read',
    'orders:write',
    'messages:write',
    'webhooks:read',
    'webhooks:write',
  ]
  assert.deepEqual(created!.changes, {
    after: { name: 'ci', environment: 'test', prefix: key.prefix, expiresAt: null, scopes: allScopes },
  })
  assert.deepEqual(roll!.actor, { kind: 'operator', id: 'op_1', email: 'ops@example.com', address: '192.0.2.7' })
  assert.deepEqual(roll!.target, { kind: 'key', id: key.id })
  assert.equal(roll!.changes!.previousKeyId, key.id)
  assert.equal(roll!.changes!.newKeyId, rolled.created.id)
  assert.equal(roll!.changes!.graceSeconds, 60)
  assert.deepEqual(roll!.changes!.scopes, allScopes, 'the scopes the new key keeps')
  assert.deepEqual(revoked!.target, { kind: 'key', id: rolled.created.id })
  assert.deepEqual(plan!.changes, {
    before: { plan: 'free', perMinute: 60, perDay: 1000 },
    after: { plan: 'pro', perMinute: 300, perDay: 10000 },
  })
  assert.deepEqual(suspended!.changes, { reason: 'abuse of the API' })
  assert.equal(reactivated!.action, 'account.reactivated')
  assert.deepEqual(deleted!.changes, { reason: 'asked by its owner' })
  for (const e of list) assert.equal(e.accountId, account.id)
  assert.ok(
    list.every((e) => e.at === new Date(h.clock.now()).toISOString()),
    'stamped with the service clock',
  )

  const stored = await allRows()
  for (const secret of [key.key, rolled.created.key]) {
    assert.ok(!stored.includes(secret), 'no API key secret in any audit row')
    assert.ok(!stored.includes(secret.slice(-20)), 'not even the end of one')
  }
})

test('a change that changes nothing writes no entry; a failed change writes none either', async (t) => {
  const { accounts, entries } = await setUp(t)
  const account = await accounts.createAccount({ name: 'idle', plan: 'pro', actor: cli })
  const key = await accounts.createApiKey({ accountId: account.id, environment: 'test', actor: cli })
  await accounts.revokeApiKey(key.id, { actor: cli })
  const before = (await entries(account.id)).length
  await accounts.revokeApiKey(key.id, { actor: cli })
  await accounts.setPlan({ id: account.id, plan: 'pro', actor: cli })
  await accounts.reactivate({ accountId: account.id, actor: cli })
  await accounts.suspend({ accountId: account.id, reason: 'first', actor: cli })
  await accounts.suspend({ accountId: account.id, reason: 'second', actor: cli })
  assert.deepEqual(
    (await accounts.getAccount(account.id)).suspensionReason,
    'first',
    'suspending a suspended account keeps the first reason',
  )
  await assert.rejects(accounts.suspend({ accountId: account.id, reason: '  ', actor: cli }), AccountInputError)
  await assert.rejects(
    accounts.createApiKey({ accountId: account.id, environment: 'test', actor: cli }),
    AccountStateError,
    'a suspended account gets no new key',
  )
  await assert.rejects(accounts.setPlan({ id: account.id, plan: 'nope', actor: cli }))
  const after = await entries(account.id)
  assert.equal(after.length, before + 1, after.map((e) => e.action).join(', '))
  assert.equal(after[0]!.action, 'account.suspended')
})

test(
  'suspended: 403 account_suspended on /v1 and the messages interface; ' + 'reactivated: the keys work as they were',
  async (t) => {
    const { accounts, pets, messages } = await setUp(t)
    const account = await accounts.createAccount({ name: 'shop', plan: 'free', actor: cli })
    const working = await accounts.createApiKey({ accountId: account.id, environment: 'test', actor: cli })
    const revoked = await accounts.createApiKey({ accountId: account.id, environment: 'test', actor: cli })
    await accounts.revokeApiKey(revoked.id, { actor: cli })
    assert.equal((await pets.inject({ url: '/v1/pets', headers: bearer(working.key) })).statusCode, 200)

    const suspended = await accounts.suspend({ accountId: account.id, reason: 'unpaid invoices', actor: operator })
    assert.ok(suspended.suspendedAt !== null)
    assert.equal(suspended.suspensionReason, 'unpaid invoices')
    const refused = await pets.inject({ url: '/v1/pets', headers: bearer(working.key) })
    assert.equal(refused.statusCode, 403)
    const body = errorOf(refused)
    assert.equal(body.code, 'account_suspended')
    assert.match(body.message, /suspended/)
    assert.match(body.message, /operator/)
    assert.equal(refused.headers['www-authenticate'], undefined, 'the key itself is fine: no challenge')
    assert.ok(!refused.body.includes('unpaid'), 'the reason is for the owner in the portal, not for every API client')
    const sent = await postMessage({ app: messages }, working.key, { message: 'hello' })
    assert.equal(sent.statusCode, 403)
    assert.equal(errorOf(sent).code, 'account_suspended')
    const revokedAnswer = await pets.inject({ url: '/v1/pets', headers: bearer(revoked.key) })
    assert.equal(revokedAnswer.statusCode, 401, 'a revoked key is still answered as revoked')

    await accounts.reactivate({ accountId: account.id, actor: operator })
    assert.equal((await pets.inject({ url: '/v1/pets', headers: bearer(working.key) })).statusCode, 200)
    assert.equal((await postMessage({ app: messages }, working.key, { message: 'hello' })).statusCode, 202)
    assert.equal(
      (await pets.inject({ url: '/v1/pets', headers: bearer(revoked.key) })).statusCode,
      401,
      'reactivating does not bring a revoked key back',
    )
    const back = await accounts.getAccount(account.id)
    assert.equal(back.suspendedAt, null)
    assert.equal(back.suspensionReason, null)
  },
)

test('a plan change shows in X-RateLimit-Limit on the next request', async (t) => {
  const { accounts, pets } = await setUp(t)
  const account = await accounts.createAccount({ name: 'growing', plan: 'free', actor: cli })
  const key = await accounts.createApiKey({ accountId: account.id, environment: 'test', actor: cli })
  const limit = async () =>
    (await pets.inject({ url: '/v1/pets', headers: bearer(key.key) })).headers['x-ratelimit-limit']
  assert.equal(await limit(), '60')
  await accounts.setPlan({ id: account.id, plan: 'business', actor: operator })
  assert.equal(await limit(), '1000')
  await accounts.setPlan({ id: account.id, plan: 'enterprise', perMinute: 4242, perDay: 100000, actor: operator })
  assert.equal(await limit(), '4242')
})

test('liftBan: ban.lifted when there was a ban, nothing when there was none', async (t) => {
  const { h, accounts, audit, entries } = await setUp(t)
  const account = await accounts.createAccount({ name: 'noisy', plan: 'free', actor: cli })
  const key = await accounts.createApiKey({ accountId: account.id, environment: 'test', actor: cli })
  const store = h.services.rateLimitStore
  const input = { store, audit, keyId: key.id, accountId: account.id, actor: cli }
  assert.deepEqual(await liftBan(input), { wasBanned: false })
  assert.equal((await entries(account.id)).filter((e) => e.action === 'ban.lifted').length, 0)
  // A ban as the limiter sets one: past the threshold of refusals within the window.
  const pets = h.pets!
  for (let i = 0; i < 60; i++) await pets.inject({ url: '/v1/pets', headers: bearer(key.key) })
  for (let i = 0; i < 40; i++) await pets.inject({ url: '/v1/pets', headers: bearer(key.key) })
  assert.ok(
    (await store.bannedUntil({ subject: keySubject(key.id), now: h.clock.now() })) !== undefined,
    'the key is banned',
  )
  assert.deepEqual(await liftBan(input), { wasBanned: true })
  const lifted = (await entries(account.id)).filter((e) => e.action === 'ban.lifted')
  assert.equal(lifted.length, 1)
  assert.deepEqual(lifted[0]!.target, { kind: 'key', id: key.id })
  const after = await pets.inject({ url: '/v1/pets', headers: bearer(key.key) })
  assert.equal(errorOf(after).code, 'rate_limit_exceeded', 'the minute is still used up, but the ban is gone')
})
