// Every migration on a real, empty PostgreSQL schema: up, up again (nothing to do), down to empty, up again;
// int64 columns are `bigint`, the keyset indexes exist, Kysely's bookkeeping stays in the schema, and several
// instances starting at once migrate exactly once, also while other schemas of the database come and go. Runs in
// the PostgreSQL + Redis pass.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql, type Kysely } from 'kysely'
import pg from 'pg'
import { openDatabase } from '../../src/db/database.js'
import { migrateDownTo, migrateToLatest, migrations } from '../../src/db/migrate.js'
import { postgresOnly, postgresSchema } from '../helpers/backend.js'

const ALL = Object.keys(migrations)
const TABLES = [
  'account_invitations',
  'account_members',
  'account_team_settings',
  'accounts',
  'api_keys',
  'audit_events',
  'idempotency_keys',
  'messages',
  'operator_login_failures',
  'operator_recovery_codes',
  'operator_sessions',
  'operator_tokens',
  'operators',
  'orders',
  'pets',
  'plan_requests',
  'portal_code_failures',
  'portal_devices',
  'portal_login_failures',
  'portal_login_steps',
  'portal_passkeys',
  'portal_recovery_codes',
  'portal_sessions',
  'portal_tokens',
  'portal_two_factor',
  'portal_users',
  'portal_webauthn_challenges',
  'rate_limit_bans',
  'rate_limit_counters',
  'settings',
  'usage_days',
  'usage_minutes',
  'webhook_attempts',
  'webhook_deliveries',
  'webhook_endpoints',
  'webhook_events',
]
const INDEXES: Record<string, string> = {
  api_keys_account_id: 'api_keys(account_id)',
  account_members_user: 'account_members(user_id)',
  account_invitations_account: 'account_invitations(account_id, created_at)',
  pets_account_id_id: 'pets(account_id, id)',
  pets_account_status_id: 'pets(account_id, status, id)',
  messages_due: 'messages(status, next_attempt_at, seq)',
  idempotency_keys_expires_at: 'idempotency_keys(expires_at)',
  orders_account_id_id: 'orders(account_id, id)',
  orders_account_status_id: 'orders(account_id, status, id)',
  usage_minutes_account_minute: 'usage_minutes(account_id, minute)',
  usage_days_account_day: 'usage_days(account_id, day)',
  portal_tokens_user: 'portal_tokens(user_id)',
  portal_sessions_user: 'portal_sessions(user_id)',
  portal_login_failures_who: 'portal_login_failures(email_key, address, at)',
  portal_login_failures_address: 'portal_login_failures(address, at)',
  portal_login_failures_at: 'portal_login_failures(at)',
  portal_passkeys_user: 'portal_passkeys(user_id)',
  portal_recovery_codes_user: 'portal_recovery_codes(user_id)',
  portal_code_failures_user: 'portal_code_failures(user_id, at)',
  portal_code_failures_address: 'portal_code_failures(address, at)',
  audit_events_account: 'audit_events(account_id, seq)',
  audit_events_at: 'audit_events(at)',
  audit_events_action: 'audit_events(action, seq)',
  audit_events_actor: 'audit_events(lower(actor_email), seq)',
  audit_events_actor_kind: 'audit_events(actor_kind, seq)',
  operator_tokens_operator: 'operator_tokens(operator_id)',
  operator_recovery_codes_operator: 'operator_recovery_codes(operator_id)',
  operator_sessions_operator: 'operator_sessions(operator_id)',
  operator_login_failures_who: 'operator_login_failures(email_key, address, at)',
  operator_login_failures_address: 'operator_login_failures(address, at)',
  plan_requests_state: 'plan_requests(state, created_at)',
  plan_requests_account: 'plan_requests(account_id)',
  usage_minutes_minute: 'usage_minutes(minute)',
  usage_days_day: 'usage_days(day)',
  api_keys_key_prefix: 'api_keys(key_prefix)',
  webhook_attempts_endpoint: 'webhook_attempts(endpoint_id, seq)',
  webhook_deliveries_due: 'webhook_deliveries(next_attempt_at, seq)',
  webhook_deliveries_event: 'webhook_deliveries(event_seq, endpoint_id)',
  webhook_endpoints_account: 'webhook_endpoints(account_id)',
  webhook_events_account: 'webhook_events(account_id, seq)',
  webhook_events_account_type: 'webhook_events(account_id, type, seq)',
  webhook_events_stream: 'webhook_events(account_id, tx, seq)',
}

type After = { after: (fn: () => Promise<void>) => void }

async function fresh(t: After) {
  const url = await postgresSchema(t)
  const handle = openDatabase(url, { poolSize: 2 })
  t.after(() => handle.close())
  assert.match(
    (await sql<{ s: string }>`select current_schema() as s`.execute(handle.db)).rows[0]!.s,
    /^t_/,
    'a schema of its own',
  )
  return { db: handle.db, url, close: handle.close }
}

/** Tables in the connection's schema, split into ours and Kysely's migration bookkeeping. */
async function tables(db: Kysely<any>): Promise<{ ours: string[]; kysely: string[] }> {
  const { rows } = await sql<{
    name: string
  }>`select table_name as name from information_schema.tables where table_schema = current_schema() order by 1`.execute(
    db,
  )
  const names = rows.map((r) => r.name)
  return { ours: names.filter((n) => !n.startsWith('kysely_')), kysely: names.filter((n) => n.startsWith('kysely_')) }
}

/**
 * index name → `table(col or expression, …)`, in the connection's schema (primary keys and unique constraints
 * aside).
 */
async function indexes(db: Kysely<any>): Promise<Record<string, string>> {
  const { rows } = await sql<{ name: string; def: string }>`
    select i.relname as name,
      t.relname || '(' || string_agg(pg_get_indexdef(x.indexrelid, k.n::int, true), ', ' order by k.n) || ')' as def
    from pg_index x
    join pg_class i on i.oid = x.indexrelid
    join pg_class t on t.oid = x.indrelid
    join pg_namespace ns on ns.oid = t.relnamespace and ns.nspname = current_schema()
    cross join lateral unnest(x.indkey) with ordinality as k(attnum, n)
    where not x.indisprimary and not x.indisunique
    group by i.relname, t.relname`.execute(db)
  return Object.fromEntries(rows.map((r) => [r.name, r.def]))
}

async function columnType(db: Kysely<any>, table: string, column: string): Promise<string | undefined> {
  const { rows } = await sql<{ type: string }>`
    select data_type as type from information_schema.columns
    where table_schema = current_schema() and table_name = ${table} and column_name = ${column}`.execute(db)
  return rows[0]?.type
}

test(
  'postgres: every migration applies to an empty schema, in order; ' +
    'again applies nothing; down to empty and up again',
  async (t) => {
    if (postgresOnly(t)) return
    const { db } = await fresh(t)
    assert.deepEqual(await tables(db), { ours: [], kysely: [] })

    assert.deepEqual(await migrateToLatest(db), ALL)
    const created = await tables(db)
    assert.deepEqual(created.ours, TABLES)
    assert.deepEqual(
      created.kysely,
      ['kysely_migration', 'kysely_migration_lock'],
      'the bookkeeping lives in the same schema',
    )
    assert.deepEqual(await indexes(db), INDEXES)

    await db.insertInto('settings').values({ name: 'probe', value: 'kept' }).execute()
    assert.deepEqual(await migrateToLatest(db), [], 'up to date: nothing to apply')
    assert.deepEqual(await db.selectFrom('settings').select('value').where('name', '=', 'probe').execute(), [
      { value: 'kept' },
    ])

    assert.deepEqual(await migrateDownTo(db, undefined), [...ALL].reverse())
    assert.deepEqual((await tables(db)).ours, [], 'down to empty')
    assert.deepEqual(await indexes(db), {})

    assert.deepEqual(await migrateToLatest(db), ALL)
    assert.deepEqual((await tables(db)).ours, TABLES)
    assert.deepEqual(await indexes(db), INDEXES)
  },
)

test('postgres: int64 columns are bigint; the largest int64 round-trips exactly through a real row', async (t) => {
  if (postgresOnly(t)) return
  const { db } = await fresh(t)
  await migrateToLatest(db)
  for (const [table, column] of [
    ['pets', 'id'],
    ['pets', 'category_id'],
    ['messages', 'seq'],
    ['messages', 'next_attempt_at'],
    ['messages', 'locked_until'],
    ['orders', 'id'],
    ['orders', 'pet_id'],
  ]) {
    assert.equal(await columnType(db, table!, column!), 'bigint', `${table}.${column}`)
  }
  const { rows } = await sql<{
    identity: string
  }>`select is_identity as identity from information_schema.columns
    where table_schema = current_schema() and table_name = 'pets' and column_name = 'id'`.execute(db)
  assert.equal(rows[0]?.identity, 'YES', 'pets.id is generated by the database')

  const max = 9223372036854775807n
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
    .values({
      id: max,
      account_id: 'acct_1',
      name: 'Max',
      category_id: max,
      status: null,
      created_at: '2027-01-01T00:00:00Z',
    } as never)
    .execute()
  const pet = await db.selectFrom('pets').select(['id', 'category_id']).executeTakeFirstOrThrow()
  assert.deepEqual(
    pet,
    { id: max, category_id: max },
    'bigint in, the same bigint out: never a rounded number or a string',
  )
})

test(
  'postgres: several instances starting at once on an ' + 'empty schema migrate it exactly once, without error',
  async (t) => {
    if (postgresOnly(t)) return
    const { url } = await fresh(t)
    const handles = Array.from({ length: 4 }, () => openDatabase(url, { poolSize: 2 }))
    t.after(async () => {
      for (const h of handles) await h.close()
    })
    const applied = await Promise.all(handles.map((h) => migrateToLatest(h.db)))
    assert.deepEqual(applied.flat().sort(), [...ALL].sort(), 'each migration was applied by exactly one of them')
    assert.deepEqual((await tables(handles[0]!.db)).ours, TABLES)
  },
)

test('postgres: a schema migrates while other schemas of the database are created and dropped', async (t) => {
  if (postgresOnly(t)) return
  // Another service (or test) on the same database: its schemas come and go while we start. Kysely's own catalog
  // look-up read every schema and failed on one dropped under it ("schema … does not exist").
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
  await admin.connect()
  t.after(() => admin.end())
  let churning = true
  const churn = (async () => {
    for (let i = 0; churning; i++) {
      const other = `t_churn_${process.pid}_${i}`
      await admin.query(
        `create schema ${other}; create table ${other}.a (id serial primary key, b int, c text); ` +
          `create table ${other}.d (id serial, e int)`,
      )
      await admin.query(`drop schema ${other} cascade`)
    }
  })()
  try {
    for (let i = 0; i < 12; i++) {
      const { db } = await fresh(t)
      assert.deepEqual(await migrateToLatest(db), ALL)
    }
  } finally {
    churning = false
    await churn
  }
})
