// API key secrets: ≥ 32 random bytes behind an environment prefix, stored only as a hash, never logged.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import { sql } from 'kysely'
import { backend } from '../helpers/backend.js'
import { bearer, startHarness } from '../helpers/harness.js'
import { createPet } from '../helpers/pets.js'
import { testActor } from '../helpers/actors.js'

const secretBytes = (key: string) => Buffer.from(key.replace(/^ps_(live|test)_/, ''), 'base64url')

test('keys carry their environment prefix and at least 32 random bytes, and each one works', async (t) => {
  for (const [env, prefix] of [
    ['development', 'ps_test_'],
    ['staging', 'ps_test_'],
    ['production', 'ps_live_'],
  ] as const) {
    const h = await startHarness(t, { env: { PETSTORE_ENV: env } })
    const a = await h.newAccount()
    const b = await h.newAccount()
    for (const { key } of [a, b]) {
      assert.ok(key.startsWith(prefix), `${env}: ${key}`)
      assert.match(key.slice(prefix.length), /^[A-Za-z0-9_-]+$/)
      assert.ok(secretBytes(key).length >= 32, `${env}: ${secretBytes(key).length} bytes`)
      assert.equal((await h.app.inject({ url: '/v1/pets', headers: bearer(key) })).statusCode, 200)
    }
    assert.notDeepEqual(secretBytes(a.key), secretBytes(b.key))
  }
})

test('staging accepts ps_test_ keys and refuses ps_live_ keys', async (t) => {
  const h = await startHarness(t, { env: { PETSTORE_ENV: 'staging' } })
  const { accountId, key } = await h.newAccount()
  assert.equal((await h.app.inject({ url: '/v1/pets', headers: bearer(key) })).statusCode, 200)
  const live = await h.services.accounts.createApiKey({ actor: testActor, accountId, environment: 'live' })
  const refused = await h.app.inject({ url: '/v1/pets', headers: bearer(live.key) })
  assert.equal(refused.statusCode, 401)
  assert.equal(refused.json().code, 'invalid_api_key')
})

test('the database holds only a hash of the secret, nowhere the secret itself', async (t) => {
  const h = await startHarness(t)
  const { key, keyId } = await h.newAccount()
  await createPet(h, key, { name: 'Rex', categoryId: 1 })
  const row = await h.handle.db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirstOrThrow()
  assert.equal(row.key_hash, createHash('sha256').update(key).digest('hex'))
  const random = key.slice('ps_test_'.length)
  const tables =
    backend === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(h.handle.db)
      : await sql<{
          name: string
        }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(
          h.handle.db,
        )
  for (const { name } of tables.rows) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(h.handle.db)
    for (const r of rows.rows) {
      for (const value of Object.values(r))
        assert.ok(!String(value).includes(random.slice(0, 12)), `${name} holds part of the secret`)
    }
  }
})

test('the secret is never logged, whatever the request and its outcome', async (t) => {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk))
      done()
    },
  })
  const h = await startHarness(t, { logger: { level: 'trace', stream } })
  const { key, keyId } = await h.newAccount()
  const created = await createPet(h, key, { name: 'Rex', categoryId: 1 })
  const headerVariants = [
    bearer(key),
    { authorization: key },
    { authorization: `Basic ${key}` },
    { authorization: `Bearer ${key} x` },
    bearer(`${key}x`),
  ]
  for (const headers of headerVariants) {
    await h.app.inject({ url: '/v1/pets?limit=1', headers })
    await h.app.inject({ url: `/v1/pets/${created.id}`, headers })
    await h.app.inject({ method: 'POST', url: '/v1/pets', headers, payload: { name: key, categoryId: 'x' } })
    await h.app.inject({ url: '/v1/nowhere', headers })
  }
  await h.services.accounts.revokeApiKey(keyId, { actor: testActor })
  await h.app.inject({ url: '/v1/pets', headers: bearer(key) })
  await sql`drop table pets`.execute(h.handle.db)
  await h.app.inject({ url: '/v1/pets', headers: bearer(key) })
  assert.ok(lines.length >= 20, `the log was captured (${lines.length} lines)`)
  const random = key.slice('ps_test_'.length)
  for (const line of lines) assert.ok(!line.includes(random.slice(0, 12)), `a log line holds the secret: ${line}`)
})
