// The key lifecycle through the one repository (names, expiry, roll with a grace period, revoke), checked over
// real HTTP: each refused key gets 401 invalid_api_key saying why, and never the key itself.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { KeyInputError, KeyStateError, NotFoundError } from '../../../src/modules/accounts/accounts.repository.js'
import { bearer, errorOf, startHarness, type Harness } from '../../helpers/harness.js'
import { testActor } from '../../helpers/actors.js'

const T0 = Date.parse('2027-01-01T00:00:00Z')

async function statusOf(h: Harness, key: string): Promise<{ statusCode: number; code?: string; message?: string }> {
  const res = await h.app.inject({ url: '/v1/pets', headers: bearer(key) })
  if (res.statusCode === 200) return { statusCode: 200 }
  const body = errorOf(res)
  assert.ok(!body.message.includes(key.slice(8, 20)), 'the message repeats the key')
  return { statusCode: res.statusCode, code: body.code, message: body.message }
}

test('createApiKey validates the name and the expiry', async (t) => {
  const h = await startHarness(t, { now: T0 })
  const { accountId } = await h.newAccount()
  const create = (extra: { name?: string; expiresAt?: string }) =>
    h.services.accounts.createApiKey({ actor: testActor, accountId, environment: 'test', ...extra })
  await assert.rejects(create({ expiresAt: '2027-01-01T00:00:00Z' }), KeyInputError, 'not in the future')
  await assert.rejects(create({ expiresAt: '2027-06-30' }), KeyInputError, 'no time and zone')
  await assert.rejects(create({ expiresAt: '2027-06-30T00:00:00' }), KeyInputError, 'no zone')
  await assert.rejects(create({ expiresAt: 'tomorrow' }), KeyInputError)
  await assert.rejects(create({ name: 'x'.repeat(101) }), KeyInputError)
  await assert.rejects(create({ name: 'a\nb' }), KeyInputError)
  assert.equal((await create({ name: '   ' })).name, null, 'a blank name is no name')
  const ok = await create({ name: 'CI', expiresAt: '2027-01-01T03:00:00+02:00' })
  assert.equal(ok.expiresAt, '2027-01-01T01:00:00.000Z', 'stored in UTC')
  assert.equal(ok.state, 'active')
})

test('an expired key gets 401 invalid_api_key saying when it expired; the listing says expired', async (t) => {
  const h = await startHarness(t, { now: T0 })
  const { accountId } = await h.newAccount()
  h.clock.advance(1000)
  const key = await h.services.accounts.createApiKey({
    actor: testActor,
    accountId,
    environment: 'test',
    name: 'short-lived',
    expiresAt: '2027-01-01T01:00:00Z',
  })
  assert.deepEqual(await statusOf(h, key.key), { statusCode: 200 })
  h.clock.set(Date.parse('2027-01-01T00:59:59.999Z'))
  assert.deepEqual(await statusOf(h, key.key), { statusCode: 200 })
  h.clock.set(Date.parse('2027-01-01T01:00:00Z'))
  const refused = await statusOf(h, key.key)
  assert.equal(refused.statusCode, 401)
  assert.equal(refused.code, 'invalid_api_key')
  assert.equal(refused.message, 'This API key expired at 2027-01-01T01:00:00.000Z.')
  const listed = await h.services.accounts.listApiKeys(accountId)
  assert.deepEqual(
    listed.map((k) => [k.name, k.state]),
    [
      [null, 'active'],
      ['short-lived', 'expired'],
    ],
  )
})

test(
  'roll with a grace period: both keys work during it, ' + 'the old one is refused after it with the reason',
  async (t) => {
    const h = await startHarness(t, { now: T0 })
    const { accountId } = await h.newAccount()
    const old = await h.services.accounts.createApiKey({
      actor: testActor,
      accountId,
      environment: 'test',
      name: 'backend',
      expiresAt: '2027-03-01T00:00:00Z',
    })
    const { previous, created } = await h.services.accounts.rollApiKey({
      actor: testActor,
      keyId: old.id,
      graceSeconds: 3600,
    })
    assert.notEqual(created.key, old.key)
    assert.equal(created.name, 'backend', 'same name')
    assert.equal(created.expiresAt, '2027-03-01T00:00:00.000Z', 'same expiry instant: rolling never extends a key')
    assert.equal(previous.replacedBy, created.id)
    assert.equal(previous.graceEndsAt, '2027-01-01T01:00:00.000Z')
    assert.equal(previous.state, 'active')

    h.clock.set(Date.parse('2027-01-01T00:59:59Z'))
    assert.deepEqual(await statusOf(h, old.key), { statusCode: 200 })
    assert.deepEqual(await statusOf(h, created.key), { statusCode: 200 })
    h.clock.set(Date.parse('2027-01-01T01:00:00Z'))
    const refused = await statusOf(h, old.key)
    assert.deepEqual(refused, {
      statusCode: 401,
      code: 'invalid_api_key',
      message: 'This API key was rolled; its grace period ended at 2027-01-01T01:00:00.000Z.',
    })
    assert.deepEqual(await statusOf(h, created.key), { statusCode: 200 })
    assert.equal((await h.services.accounts.getApiKey(old.id)).state, 'expired')

    await assert.rejects(
      h.services.accounts.rollApiKey({ actor: testActor, keyId: old.id, graceSeconds: 0 }),
      KeyStateError,
      'a rolled key cannot be rolled again',
    )
  },
)

test('roll with grace 0: the old key is refused from the next request on', async (t) => {
  const h = await startHarness(t, { now: T0 })
  const account = await h.newAccount()
  const { created } = await h.services.accounts.rollApiKey({ actor: testActor, keyId: account.keyId, graceSeconds: 0 })
  assert.equal(
    (await statusOf(h, account.key)).message,
    'This API key was rolled; its grace period ended at 2027-01-01T00:00:00.000Z.',
  )
  assert.deepEqual(await statusOf(h, created.key), { statusCode: 200 })
})

test('roll validates the grace period and refuses revoked or expired keys', async (t) => {
  const h = await startHarness(t, { now: T0 })
  const account = await h.newAccount()
  for (const graceSeconds of [-1, 604_801, 1.5, Number.NaN]) {
    await assert.rejects(
      h.services.accounts.rollApiKey({ actor: testActor, keyId: account.keyId, graceSeconds }),
      KeyInputError,
      String(graceSeconds),
    )
  }
  assert.equal(
    (await h.services.accounts.rollApiKey({ actor: testActor, keyId: account.keyId, graceSeconds: 604_800 })).previous
      .graceEndsAt,
    '2027-01-08T00:00:00.000Z',
  )
  const revoked = await h.services.accounts.createApiKey({
    actor: testActor,
    accountId: account.accountId,
    environment: 'test',
  })
  await h.services.accounts.revokeApiKey(revoked.id, { actor: testActor })
  await assert.rejects(
    h.services.accounts.rollApiKey({ actor: testActor, keyId: revoked.id, graceSeconds: 0 }),
    KeyStateError,
  )
  const expiring = await h.services.accounts.createApiKey({
    actor: testActor,
    accountId: account.accountId,
    environment: 'test',
    expiresAt: '2027-01-01T00:01:00Z',
  })
  h.clock.advance(60_000)
  await assert.rejects(
    h.services.accounts.rollApiKey({ actor: testActor, keyId: expiring.id, graceSeconds: 0 }),
    KeyStateError,
  )
  await assert.rejects(
    h.services.accounts.rollApiKey({ actor: testActor, keyId: 'key_nope', graceSeconds: 0 }),
    NotFoundError,
  )
})

test(
  'revoke: the next request gets 401 "This API key was revoked."; ' + 'revoking again keeps the first time',
  async (t) => {
    const h = await startHarness(t, { now: T0 })
    const account = await h.newAccount()
    assert.deepEqual(await statusOf(h, account.key), { statusCode: 200 })
    const revoked = await h.services.accounts.revokeApiKey(account.keyId, { actor: testActor })
    assert.equal(revoked.state, 'revoked')
    assert.deepEqual(await statusOf(h, account.key), {
      statusCode: 401,
      code: 'invalid_api_key',
      message: 'This API key was revoked.',
    })
    h.clock.advance(1000)
    assert.equal(
      (await h.services.accounts.revokeApiKey(account.keyId, { actor: testActor })).revokedAt,
      revoked.revokedAt,
    )
  },
)

test('a key rolled and then revoked during its grace period is refused at once', async (t) => {
  const h = await startHarness(t, { now: T0 })
  const account = await h.newAccount()
  await h.services.accounts.rollApiKey({ actor: testActor, keyId: account.keyId, graceSeconds: 86_400 })
  assert.deepEqual(await statusOf(h, account.key), { statusCode: 200 })
  await h.services.accounts.revokeApiKey(account.keyId, { actor: testActor })
  assert.equal((await statusOf(h, account.key)).message, 'This API key was revoked.')
})

test("roll and revoke restricted to an account: another account's key is not found and stays untouched", async (t) => {
  const h = await startHarness(t, { now: T0 })
  const mine = await h.newAccount()
  const theirs = await h.newAccount()
  await assert.rejects(
    h.services.accounts.rollApiKey({
      actor: testActor,
      keyId: theirs.keyId,
      graceSeconds: 0,
      accountId: mine.accountId,
    }),
    (e: Error) => e instanceof NotFoundError && e.message === `no API key with id ${theirs.keyId}`,
  )
  await assert.rejects(
    h.services.accounts.revokeApiKey(theirs.keyId, { actor: testActor, accountId: mine.accountId }),
    NotFoundError,
  )
  assert.deepEqual(await statusOf(h, theirs.key), { statusCode: 200 })
  assert.equal((await h.services.accounts.getApiKey(theirs.keyId)).replacedBy, null)
  // Their own account can.
  const { created } = await h.services.accounts.rollApiKey({
    actor: testActor,
    keyId: theirs.keyId,
    graceSeconds: 0,
    accountId: theirs.accountId,
  })
  assert.equal(created.accountId, theirs.accountId)
  assert.equal(
    (await h.services.accounts.revokeApiKey(created.id, { actor: testActor, accountId: theirs.accountId })).state,
    'revoked',
  )
})
