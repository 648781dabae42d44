// Every migration on a real, empty SQLite database: up, up again (nothing to do), down to empty, up again.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql, type Kysely } from 'kysely'
import { openDatabase } from '../../src/db/database.js'
import { migrateDownTo, migrateToLatest, migrations } from '../../src/db/migrate.js'

const ALL = Object.keys(migrations)
const CORE_TABLES = ['accounts', 'api_keys', 'pets', 'settings']
/** index name → [table, columns] */
const CORE_INDEXES: Record<string, [string, string[]]> = {
  api_keys_account_id: ['api_keys', ['account_id']],
  pets_account_id_id: ['pets', ['account_id', 'id']],
  pets_account_status_id: ['pets', ['account_id', 'status', 'id']],
  orders_account_id_id: ['orders', ['account_id', 'id']],
  orders_account_status_id: ['orders', ['account_id', 'status', 'id']],
}

function fresh(t: { after: (fn: () => Promise<void>) => void }) {
  const handle = openDatabase(':memory:')
  t.after(() => handle.close())
  return handle.db
}

/** Our tables: everything except SQLite's own and Kysely's migration bookkeeping. */
async function tables(db: Kysely<any>): Promise<string[]> {
  const { rows } = await sql<{
    name: string
  }>`select name from sqlite_master where type = 'table' order by name`.execute(db)
  return rows.map((r) => r.name).filter((n) => !n.startsWith('sqlite_') && !n.startsWith('kysely_'))
}

async function indexColumns(db: Kysely<any>, index: string): Promise<{ table: string; columns: string[] } | undefined> {
  const { rows } = await sql<{
    tbl_name: string
  }>`select tbl_name from sqlite_master where type = 'index' and name = ${index}`.execute(db)
  if (rows.length === 0) return undefined
  const cols = await sql<{ name: string }>`select name from pragma_index_info(${index}) order by seqno`.execute(db)
  return { table: rows[0]!.tbl_name, columns: cols.rows.map((c) => c.name) }
}

async function uniqueColumns(db: Kysely<any>, table: string): Promise<string[][]> {
  const { rows } = await sql<{
    name: string
    unique: bigint | number
  }>`select name, "unique" from pragma_index_list(${table})`.execute(db)
  const result: string[][] = []
  for (const index of rows.filter((r) => Number(r.unique) === 1))
    result.push((await indexColumns(db, index.name))?.columns ?? [])
  return result
}

test('on an empty database every migration is applied, in order, creating the tables and their indexes', async (t) => {
  const db = fresh(t)
  assert.deepEqual(await tables(db), [])
  assert.deepEqual(await migrateToLatest(db), ALL)
  assert.deepEqual([...ALL].sort(), ALL, 'migration names sort in the order they are applied')

  const present = await tables(db)
  for (const table of CORE_TABLES) assert.ok(present.includes(table), `table ${table} missing: ${present.join(', ')}`)
  for (const [index, [table, columns]] of Object.entries(CORE_INDEXES)) {
    assert.deepEqual(await indexColumns(db, index), { table, columns }, `index ${index}`)
  }
  assert.ok(
    (await uniqueColumns(db, 'api_keys')).some((cols) => cols.join() === 'key_hash'),
    'api_keys.key_hash is unique',
  )
})

test('migrating again applies nothing and keeps the data', async (t) => {
  const db = fresh(t)
  await migrateToLatest(db)
  await db.insertInto('settings').values({ name: 'probe', value: 'kept' }).execute()
  assert.deepEqual(await migrateToLatest(db), [])
  const row = await db.selectFrom('settings').select('value').where('name', '=', 'probe').executeTakeFirst()
  assert.deepEqual(row, { value: 'kept' })
})

test('migrating down to empty removes every table; migrating up again recreates them', async (t) => {
  const db = fresh(t)
  await migrateToLatest(db)
  const created = await tables(db)

  assert.deepEqual(await migrateDownTo(db, undefined), [...ALL].reverse())
  assert.deepEqual(await tables(db), [])
  for (const index of Object.keys(CORE_INDEXES))
    assert.equal(await indexColumns(db, index), undefined, `index ${index} left behind`)

  assert.deepEqual(await migrateToLatest(db), ALL)
  assert.deepEqual(await tables(db), created)
  await db
    .insertInto('accounts')
    .values({
      id: 'acct_1',
      name: 'a',
      plan: 'free',
      per_minute: null,
      per_day: null,
      created_at: '2027-01-01T00:00:00Z',
    })
    .execute()
  await db
    .insertInto('pets')
    .values({ account_id: 'acct_1', name: 'Rex', category_id: 1n, status: null, created_at: '2027-01-01T00:00:00Z' })
    .execute()
  const pets = await db.selectFrom('pets').select(['id', 'name']).execute()
  assert.deepEqual(pets, [{ id: 1n, name: 'Rex' }])
})

test('migrating down to the first migration undoes only the later ones', async (t) => {
  const db = fresh(t)
  await migrateToLatest(db)
  assert.deepEqual(await migrateDownTo(db, ALL[0]), ALL.slice(1).reverse())
  assert.deepEqual(await tables(db), CORE_TABLES)
  assert.deepEqual(await migrateToLatest(db), ALL.slice(1))
})

test('0004_keys_usage keeps existing keys: they get no name, no expiry, never used, and work as before', async (t) => {
  const db = fresh(t)
  await migrateToLatest(db)
  await migrateDownTo(db, '0003_messages')
  await db
    .insertInto('accounts')
    .values({
      id: 'acct_1',
      name: 'a',
      plan: 'free',
      per_minute: null,
      per_day: null,
      created_at: '2027-01-01T00:00:00Z',
    })
    .execute()
  await sql`insert into api_keys (id, account_id, key_hash, key_prefix, environment, created_at)
    values ('key_1', 'acct_1', 'h', 'ps_test_AbCd', 'test', '2027-01-01T00:00:00Z')`.execute(db)
  // 0004 and every migration after it (0005_portal and on).
  const since0004 = ALL.slice(ALL.indexOf('0004_keys_usage'))
  assert.deepEqual(await migrateToLatest(db), since0004)
  const row = await db.selectFrom('api_keys').selectAll().executeTakeFirstOrThrow()
  assert.deepEqual(
    {
      name: row.name,
      last_used_at: row.last_used_at,
      expires_at: row.expires_at,
      rolled_at: row.rolled_at,
      replaced_by: row.replaced_by,
      grace_ends_at: row.grace_ends_at,
      revoked_at: row.revoked_at,
    },
    {
      name: null,
      last_used_at: null,
      expires_at: null,
      rolled_at: null,
      replaced_by: null,
      grace_ends_at: null,
      revoked_at: null,
    },
  )
  assert.deepEqual(await migrateDownTo(db, '0003_messages'), [...since0004].reverse())
  assert.equal((await db.selectFrom('api_keys').select('id').execute()).length, 1, 'down keeps the keys')
})
