// Deleting an account from /portal/account: confirmed by the password; every key refused from the next request
// on (401 invalid_api_key saying the account was deleted), on a second server sharing the PostgreSQL database
// within a second; sessions end; the address can sign up again; the account row keeps no email; the purge
// removes pets, orders, messages and stored idempotent responses in batches, and nothing of other accounts.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { createAccountPurge } from '../../../src/modules/accounts/account-purge.js'
import { keyEnvironment } from '../../../src/modules/accounts/api-keys.js'
import { openDatabase } from '../../../src/db/database.js'
import { migrateToLatest } from '../../../src/db/migrate.js'
import { postgresOnly, postgresSchema } from '../../helpers/backend.js'
import { bearer, errorOf, type Harness } from '../../helpers/harness.js'
import { placeOrder } from '../../helpers/orders.js'
import { keyCachingServer } from '../../helpers/servers.js'
import { createPet } from '../../helpers/pets.js'
import { client, GOOD_PASSWORD, mails, ORIGIN, portalHarness, signedUpUser, type Client } from '../../helpers/portal.js'
import { pollUntil } from '../../helpers/within.js'
import { testActor } from '../../helpers/actors.js'

const DELETED = 'This API key belongs to an account that was deleted.'
/** Whether a raw message's To header is `to` (bare or in angle brackets). */
const isTo = (mail: string, to: string) => mail.split(/\r?\n/).some((line) => line.replace(/[<>]/g, '') === `To: ${to}`)

/** The account of a portal user, and a new API key of it. */
async function accountWithKey(h: Pick<Harness, 'services' | 'config'>, email: string) {
  const user = await h.services.portal!.repo.findUserByEmail(email)
  assert.ok(user)
  const key = await h.services.accounts.createApiKey({
    actor: testActor,
    accountId: user.account_id,
    environment: keyEnvironment(h.config.environment),
  })
  return { accountId: user.account_id, key: key.key }
}

async function deleteAccount(c: Client, password = GOOD_PASSWORD) {
  await c.get('/portal/account')
  return c.post('/portal/account/delete', { password })
}

test('a wrong password, a missing CSRF token or a logged-out visitor deletes nothing', async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, 'keep@example.com')
  const { key } = await accountWithKey(h, 'keep@example.com')
  const wrong = await deleteAccount(c, 'not the password at all')
  assert.equal(wrong.statusCode, 400)
  assert.match(wrong.body, /role="alert">The password is incorrect\. Your account was not deleted\./)
  assert.equal((await c.post('/portal/account/delete', { _csrf: '', password: GOOD_PASSWORD })).statusCode, 403)
  assert.equal(
    (await c.post('/portal/account/delete', { password: GOOD_PASSWORD }, { origin: 'https://evil.example' }))
      .statusCode,
    403,
  )
  const anonymous = client(h.app)
  await anonymous.get('/portal/login')
  const out = await anonymous.post('/portal/account/delete', { password: GOOD_PASSWORD })
  assert.equal(out.statusCode, 303)
  assert.match(out.headers.location as string, /^\/portal\/login/)
  assert.equal((await h.app.inject({ url: '/v1/pets', headers: bearer(key) })).statusCode, 200)
  assert.equal((await c.get('/portal/keys')).statusCode, 200)
})

test(
  'deleted: keys refused at once with their own message, ' +
    'sessions end, the row keeps no email, the address signs up again',
  async (t) => {
    const h = await portalHarness(t)
    const c = await signedUpUser(h, 'leaving@example.com')
    const phone = client(h.app)
    await phone.get('/portal/login')
    assert.equal(
      (await phone.post('/portal/login', { email: 'leaving@example.com', password: GOOD_PASSWORD })).statusCode,
      303,
    )
    const { accountId, key } = await accountWithKey(h, 'leaving@example.com')
    const second = await h.services.accounts.createApiKey({
      actor: testActor,
      accountId,
      environment: keyEnvironment(h.config.environment),
    })
    assert.equal((await h.app.inject({ url: '/v1/pets', headers: bearer(key) })).statusCode, 200)

    const deleted = await deleteAccount(c)
    assert.equal(deleted.statusCode, 200)
    assert.match(deleted.body, /<h1>Account deleted<\/h1>/)
    assert.doesNotMatch(deleted.body, /Log out/, 'the page is a logged-out one')
    for (const secret of [key, second.key]) {
      const refused = await h.app.inject({ url: '/v1/pets', headers: bearer(secret) })
      assert.equal(refused.statusCode, 401)
      assert.deepEqual(errorOf(refused), { code: 'invalid_api_key', message: DELETED, status: 401 })
      assert.match(String(refused.headers['www-authenticate']), /error="invalid_token"/)
    }
    assert.equal((await c.get('/portal/keys')).statusCode, 303, 'this session ended')
    assert.equal((await phone.get('/portal/keys')).statusCode, 303, 'every session ended')
    assert.ok(
      (await mails(h, h.outbox)).some(
        (m) => isTo(m, 'leaving@example.com') && /Subject: Your account was deleted/.test(m),
      ),
    )

    const row = await h.handle.db
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow()
    assert.notEqual(row.deleted_at, null)
    assert.equal(row.name, 'deleted account')
    assert.doesNotMatch(JSON.stringify(row), /leaving|example\.com/, 'the account row keeps no email')
    const db = h.handle.db
    assert.deepEqual(await db.selectFrom('portal_users').select('id').where('account_id', '=', accountId).execute(), [])
    assert.deepEqual(
      await db
        .selectFrom('portal_login_failures')
        .select('seq')
        .where('email_key', '=', 'leaving@example.com')
        .execute(),
      [],
    )

    // The address is free: a new sign-up makes a new account, whose key works.
    const again = await signedUpUser(h, 'leaving@example.com')
    assert.equal((await again.get('/portal/keys')).statusCode, 200)
    const fresh = await accountWithKey(h, 'leaving@example.com')
    assert.notEqual(fresh.accountId, accountId)
    assert.equal((await h.app.inject({ url: '/v1/pets', headers: bearer(fresh.key) })).statusCode, 200)
    assert.equal(
      (await h.app.inject({ url: '/v1/pets', headers: bearer(key) })).statusCode,
      401,
      'the old keys stay refused',
    )
  },
)

test(
  'the purge removes the pets, orders, messages and idempotent ' +
    'responses of deleted accounts, in batches, and nothing else',
  async (t) => {
    const h = await portalHarness(t)
    const seed = async (email: string) => {
      await signedUpUser(h, email)
      const { accountId, key } = await accountWithKey(h, email)
      for (let i = 0; i < 3; i++) {
        const pet = await createPet(h, key, { name: `Pet ${i}`, categoryId: 1 })
        await placeOrder(h, key, { petId: pet.id })
        await h.services.messages.create({ accountId, message: `message ${i}` })
      }
      const idempotent = await h.app.inject({
        method: 'POST',
        url: '/v1/pets',
        headers: { ...bearer(key), 'idempotency-key': '"k1"' },
        payload: { name: 'Once', categoryId: 1 },
      })
      assert.equal(idempotent.statusCode, 201)
      return accountId
    }
    const leaving = await seed('purged@example.com')
    const staying = await seed('kept@example.com')
    const c = client(h.app)
    await c.get('/portal/login')
    await c.post('/portal/login', { email: 'purged@example.com', password: GOOD_PASSWORD })
    assert.equal((await deleteAccount(c)).statusCode, 200)

    const db = h.handle.db
    const counts = async (accountId: string) => ({
      pets: (await db.selectFrom('pets').select('id').where('account_id', '=', accountId).execute()).length,
      orders: (await db.selectFrom('orders').select('id').where('account_id', '=', accountId).execute()).length,
      messages: (await db.selectFrom('messages').select('seq').where('account_id', '=', accountId).execute()).length,
      idempotency: (
        await db.selectFrom('idempotency_keys').select('idempotency_key').where('account_id', '=', accountId).execute()
      ).length,
    })
    const before = { pets: 4, orders: 3, messages: 3, idempotency: 1 }
    assert.deepEqual(await counts(leaving), before, 'deletion itself only marks the account')

    // Batches of 2 rows: several statements per table.
    const purge = createAccountPurge({ db, clock: h.clock, batchRows: 2 })
    assert.deepEqual(await purge.run(), { accounts: 1, rows: 11 })
    assert.deepEqual(await counts(leaving), { pets: 0, orders: 0, messages: 0, idempotency: 0 })
    assert.deepEqual(await counts(staying), before, 'other accounts keep everything')
    assert.deepEqual(await purge.run(), { accounts: 0, rows: 0 }, 'an emptied account is not looked at again')

    // A new process (a restart) looks again at accounts deleted within the week, and not at older ones.
    assert.deepEqual(await createAccountPurge({ db, clock: h.clock }).run(), { accounts: 1, rows: 0 })
    h.clock.advance(8 * 24 * 60 * 60 * 1000)
    assert.deepEqual(await createAccountPurge({ db, clock: h.clock }).run(), { accounts: 0, rows: 0 })
  },
)

test(
  'PostgreSQL: a deletion on one server is refused by the other, ' + 'which cached the key, within one second',
  async (t) => {
    if (postgresOnly(t)) return
    const url = await postgresSchema(t)
    const setup = openDatabase(url, { poolSize: 1 })
    await migrateToLatest(setup.db)
    t.after(() => setup.close())
    const outbox = await mkdtemp(join(tmpdir(), 'petstore-outbox-'))
    /**
     * A server with the portal on, remembering key look-ups for a minute: only the announcement can explain a prompt
     * refusal.
     */
    const server = () => keyCachingServer(t, url, { MAIL_URL: `file:${outbox}`, PETSTORE_PUBLIC_URL: ORIGIN })
    const a = await server()
    const b = await server()
    t.after(() => rm(outbox, { recursive: true, force: true }))
    const c = await signedUpUser({ ...a, outbox }, 'two@example.com')
    const { key } = await accountWithKey(a, 'two@example.com')
    for (let i = 0; i < 2; i++) assert.equal((await b.get(key)).statusCode, 200, 'b caches the key')

    assert.equal((await deleteAccount(c)).statusCode, 200)
    const here = await a.get(key)
    assert.equal(here.statusCode, 401, 'the deleting server refuses the next request')
    assert.equal(errorOf(here).message, DELETED)
    const started = performance.now()
    const refused = await pollUntil(
      'b refuses the key',
      async () => {
        const response = await b.get(key)
        return response.statusCode === 401 ? response : undefined
      },
      5_000,
      5,
    )
    const ms = performance.now() - started
    t.diagnostic(`the other server refused the deleted account's key after ${ms.toFixed(1)} ms`)
    assert.ok(ms < 1_000, `after ${ms} ms`)
    assert.equal(errorOf(refused).message, DELETED)
  },
)
