// Migration 0010 (issue 26) on a database that already has keys, on the run's backend (SQLite in memory, or a
// fresh PostgreSQL schema with TEST_BACKEND=postgres): every existing key gets every scope and is found by the
// authenticator exactly as before; down and up again keep the keys (a down drops the scopes: the code before 0010
// lets every key do everything, so up again gives every key all of them).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { createAccountsRepository } from '../../src/modules/accounts/accounts.repository.js'
import { hashApiKey } from '../../src/modules/accounts/api-keys.js'
import { SCOPES } from '../../src/modules/accounts/key-scopes.js'
import { systemClock } from '../../src/kernel/clock.js'
import { openDatabase } from '../../src/db/database.js'
import { migrateDownTo, migrateToLatest, migrations } from '../../src/db/migrate.js'
import { testActor } from '../helpers/actors.js'
import { backend, postgresSchema } from '../helpers/backend.js'
import { removeOwnersOf } from '../../src/modules/integrators/account-owners.js'

const BEFORE = '0009_console_lookups'
/** 0010 and the migrations after it (undone and done again with it). */
const SINCE = Object.keys(migrations).slice(Object.keys(migrations).indexOf('0010_key_scopes'))
const SECRET = 'ps_test_existing-key-made-before-scopes-existed'

test('keys that exist before 0010 get every scope and keep working; down and up keep them', async (t) => {
  const url = backend === 'postgres' ? await postgresSchema(t) : ':memory:'
  const handle = openDatabase(url, { poolSize: 1 })
  t.after(() => handle.close())
  const db = handle.db
  await migrateToLatest(db)
  assert.deepEqual(await migrateDownTo(db, BEFORE), [...SINCE].reverse())

  await db
    .insertInto('accounts')
    .values({
      id: 'acct_old',
      name: 'old',
      plan: 'free',
      per_minute: null,
      per_day: null,
      created_at: '2027-01-01T00:00:00Z',
    })
    .execute()
  await sql`insert into api_keys (id, account_id, key_hash, key_prefix, environment, created_at)
    values ('key_old', 'acct_old', ${hashApiKey(SECRET)}, 'ps_test_exis', 'test', '2027-01-01T00:00:00Z')`.execute(db)

  assert.deepEqual(await migrateToLatest(db), SINCE)
  const accounts = createAccountsRepository({ db, clock: systemClock, removeWithAccount: removeOwnersOf })
  const owner = await accounts.findKeyOwner(SECRET)
  assert.equal(owner?.keyId, 'key_old')
  assert.deepEqual(owner?.scopes, [...SCOPES])
  assert.deepEqual(
    (await accounts.listApiKeys('acct_old')).map((k) => k.scopes),
    [[...SCOPES]],
  )

  const narrow = await accounts.createApiKey({
    actor: testActor,
    accountId: 'acct_old',
    environment: 'test',
    scopes: ['pets:read'],
  })
  assert.deepEqual(narrow.scopes, ['pets:read'])
  assert.deepEqual(await migrateDownTo(db, BEFORE), [...SINCE].reverse())
  assert.equal((await db.selectFrom('api_keys').select('id').execute()).length, 2, 'down keeps the keys')
  await migrateToLatest(db)
  assert.deepEqual(
    (await accounts.listApiKeys('acct_old')).map((k) => k.scopes),
    [[...SCOPES], [...SCOPES]],
  )
})
