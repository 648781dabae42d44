// A key's expiry changed after creation (setKeyExpiry): one key.expiry_changed entry with the instant before and
// after, none for the same instant or a refused change; only an active key that was not rolled may change; the API
// refuses the key from the new instant on; and behind several instances (PostgreSQL, each server remembering key
// look-ups for a minute) the other server follows the change within one second, in both directions.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { KeyInputError, KeyStateError, NotFoundError } from '../../../src/modules/accounts/accounts.repository.js'
import { keyEnvironment } from '../../../src/modules/accounts/api-keys.js'
import type { AuditActor } from '../../../src/modules/audit/audit-event.js'
import { postgresOnly } from '../../helpers/backend.js'
import { bearer, errorOf, startHarness } from '../../helpers/harness.js'
import { msUntilStatus, twoKeyCachingServers } from '../../helpers/servers.js'
import { testActor } from '../../helpers/actors.js'
import { pollUntil } from '../../helpers/within.js'

const operator: AuditActor = { kind: 'operator', operatorId: 'op_1', email: 'ops@example.com', address: '192.0.2.7' }
const HOUR = 3_600_000

async function setUp(t: Parameters<typeof startHarness>[0]) {
  const h = await startHarness(t)
  const { accounts, audit } = h.services
  const account = await accounts.createAccount({ name: 'acme', plan: 'free', actor: testActor })
  const newKey = (expiresAt?: string) =>
    accounts.createApiKey({
      accountId: account.id,
      environment: keyEnvironment(h.config.environment),
      name: 'ci',
      expiresAt,
      actor: testActor,
    })
  const expiryEntries = async () =>
    (await audit.list({ accountId: account.id, limit: 100 })).filter((e) => e.action === 'key.expiry_changed')
  const call = (key: string) => h.app.inject({ url: '/v1/pets', headers: bearer(key) })
  return { h, accounts, account, newKey, expiryEntries, call }
}

test(
  'a new expiry writes key.expiry_changed with before and after; ' +
    'the same instant, a bad one or another account writes nothing',
  async (t) => {
    const { accounts, account, newKey, expiryEntries } = await setUp(t)
    const key = await newKey('2027-06-30T00:00:00Z')

    const earlier = await accounts.setKeyExpiry({
      keyId: key.id,
      expiresAt: '2027-03-01T02:00:00+02:00',
      accountId: account.id,
      actor: operator,
    })
    assert.equal(earlier.expiresAt, '2027-03-01T00:00:00.000Z', 'stored in UTC')
    assert.equal(earlier.state, 'active')
    const never = await accounts.setKeyExpiry({ keyId: key.id, expiresAt: null, actor: testActor })
    assert.equal(never.expiresAt, null)
    assert.equal((await accounts.getApiKey(key.id)).expiresAt, null)

    const [second, first] = await expiryEntries()
    assert.deepEqual(first!.target, { kind: 'key', id: key.id })
    assert.deepEqual(first!.actor, { kind: 'operator', id: 'op_1', email: 'ops@example.com', address: '192.0.2.7' })
    assert.deepEqual(first!.changes, {
      before: { expiresAt: '2027-06-30T00:00:00.000Z' },
      after: { expiresAt: '2027-03-01T00:00:00.000Z' },
      name: 'ci',
      prefix: key.prefix,
    })
    assert.deepEqual(second!.changes!.before, { expiresAt: '2027-03-01T00:00:00.000Z' })
    assert.deepEqual(second!.changes!.after, { expiresAt: null })

    // Nothing changes: never → never, and an instant → the same instant written with another offset.
    await accounts.setKeyExpiry({ keyId: key.id, expiresAt: null, actor: testActor })
    await accounts.setKeyExpiry({ keyId: key.id, expiresAt: '2027-05-01T00:00:00Z', actor: testActor })
    await accounts.setKeyExpiry({ keyId: key.id, expiresAt: '2027-05-01T01:00:00+01:00', actor: testActor })
    assert.equal(
      (await expiryEntries()).length,
      3,
      'one entry for the one real change, none for the same instant again',
    )

    await assert.rejects(
      accounts.setKeyExpiry({ keyId: key.id, expiresAt: '2026-12-31T23:59:59Z', actor: testActor }),
      (e: unknown) => e instanceof KeyInputError && /not in the future/.test(e.message),
    )
    await assert.rejects(
      accounts.setKeyExpiry({ keyId: key.id, expiresAt: '2027-06-30', actor: testActor }),
      (e: unknown) => e instanceof KeyInputError && /ISO 8601 instant/.test(e.message),
    )
    const other = await accounts.createAccount({ name: 'other', plan: 'free', actor: testActor })
    await assert.rejects(
      accounts.setKeyExpiry({ keyId: key.id, expiresAt: null, accountId: other.id, actor: testActor }),
      NotFoundError,
    )
    await assert.rejects(accounts.setKeyExpiry({ keyId: 'key_nope', expiresAt: null, actor: testActor }), NotFoundError)
    assert.equal(
      (await accounts.getApiKey(key.id)).expiresAt,
      '2027-05-01T00:00:00.000Z',
      'refused changes changed nothing',
    )
    assert.equal((await expiryEntries()).length, 3)
  },
)

test('a revoked, rolled or expired key gets no new expiry; a rolled key points at its replacement', async (t) => {
  const { h, accounts, newKey, expiryEntries } = await setUp(t)
  const revoked = await newKey()
  await accounts.revokeApiKey(revoked.id, { actor: testActor })
  await assert.rejects(
    accounts.setKeyExpiry({ keyId: revoked.id, expiresAt: '2027-06-30T00:00:00Z', actor: testActor }),
    (e: unknown) => e instanceof KeyStateError && /is revoked; only an active key/.test(e.message),
  )

  const old = await newKey()
  const { created } = await accounts.rollApiKey({ keyId: old.id, graceSeconds: 3600, actor: testActor })
  await assert.rejects(
    accounts.setKeyExpiry({ keyId: old.id, expiresAt: '2027-06-30T00:00:00Z', actor: testActor }),
    (e: unknown) =>
      e instanceof KeyStateError &&
      e.message.includes(`was rolled; its end is its grace period`) &&
      e.message.includes(`its replacement ${created.id}`),
  )
  assert.equal((await accounts.getApiKey(old.id)).expiresAt, null)
  await accounts.setKeyExpiry({ keyId: created.id, expiresAt: '2027-06-30T00:00:00Z', actor: testActor })

  const expiring = await newKey('2027-01-01T01:00:00Z')
  h.clock.advance(HOUR)
  await assert.rejects(
    accounts.setKeyExpiry({ keyId: expiring.id, expiresAt: null, actor: testActor }),
    (e: unknown) => e instanceof KeyStateError && /is expired; only an active key/.test(e.message),
  )
  assert.deepEqual(
    (await expiryEntries()).map((e) => e.target!.id),
    [created.id],
    'only the replacement changed',
  )
})

test(
  'the API refuses the key from its new expiry instant on, ' + 'and a key made to never expire keeps working',
  async (t) => {
    const { h, accounts, newKey, call } = await setUp(t)
    const key = await newKey()
    const later = await newKey('2027-01-01T00:30:00Z')
    assert.equal((await call(key.key)).statusCode, 200)
    assert.equal((await call(later.key)).statusCode, 200)

    await accounts.setKeyExpiry({ keyId: key.id, expiresAt: '2027-01-01T01:00:00Z', actor: testActor })
    await accounts.setKeyExpiry({ keyId: later.id, expiresAt: null, actor: testActor })
    h.clock.advance(HOUR - 1)
    assert.equal((await call(key.key)).statusCode, 200, 'still before the new instant')
    h.clock.advance(1)
    const refused = await call(key.key)
    assert.equal(refused.statusCode, 401)
    assert.equal(errorOf(refused).message, 'This API key expired at 2027-01-01T01:00:00.000Z.')
    assert.equal((await call(later.key)).statusCode, 200, 'past its old expiry, the key made to never expire works')
  },
)

test(
  'changed on one server, ' + 'the other (remembering key look-ups for a minute) follows within one second',
  async (t) => {
    if (postgresOnly(t)) return
    const { a, b } = await twoKeyCachingServers(t)
    const account = await a.services.accounts.createAccount({ name: 'two servers', plan: 'business', actor: testActor })
    const environment = keyEnvironment(a.config.environment)
    const far = await a.services.accounts.createApiKey({
      accountId: account.id,
      environment,
      expiresAt: '2099-01-01T00:00:00Z',
      actor: testActor,
    })
    const soon = await a.services.accounts.createApiKey({
      accountId: account.id,
      environment,
      expiresAt: new Date(Date.now() + 2_000).toISOString(),
      actor: testActor,
    })
    // Both servers have both keys in their cache, with the expiry they had.
    for (const s of [a, b])
      for (const k of [far, soon]) for (let i = 0; i < 2; i++) assert.equal((await s.get(k.key)).statusCode, 200)

    // Sooner: b would keep 2099 for a minute without the announcement.
    const instant = new Date(Date.now() + 300).toISOString()
    await a.services.accounts.setKeyExpiry({ keyId: far.id, expiresAt: instant, actor: testActor })
    const refusedMs = await msUntilStatus(() => b.get(far.key), 401)
    t.diagnostic(
      `the other server refused the key ${refusedMs.toFixed(1)} ms after the change (its new end was 300 ms after it)`,
    )
    assert.ok(refusedMs < 1_000, `${refusedMs} ms`)
    assert.equal(errorOf(await b.get(far.key)).message, `This API key expired at ${instant}.`)

    // Never: b would refuse the cached key at its old instant without the announcement.
    const generation = b.services.keyCache!.generation()
    await a.services.accounts.setKeyExpiry({ keyId: soon.id, expiresAt: null, actor: testActor })
    // Two events, not a fixed time: the announcement has emptied b's cache (any emptying from now on does: the change
    // is committed, so b's next look-up reads it), and b's clock (the system's) has passed the old instant.
    await pollUntil(
      'the change announced to the other server (its key cache emptied)',
      async () => (b.services.keyCache!.generation() > generation ? true : undefined),
      10_000,
      5,
    )
    const oldEnd = Date.parse(soon.expiresAt!)
    await pollUntil('the old expiry instant passed', async () => (Date.now() > oldEnd ? true : undefined), 10_000, 20)
    assert.equal((await b.get(soon.key)).statusCode, 200, 'past the old instant the other server still takes the key')
    assert.equal((await a.get(soon.key)).statusCode, 200)
  },
)
