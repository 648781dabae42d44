// Migration 0017 (as it was until 0021_event-streams) on a database that already has events, on the run's backend
// (SQLite in memory, or a fresh PostgreSQL schema with TEST_BACKEND=postgres): an event the worker had not fanned out
// yet gets its delivery (one per enabled endpoint subscribed to its type), one already fanned out keeps the one it had;
// after it, an event's delivery is made with the event, its id is ordered by time, and a test event is not fanned out.
// Down and up again keep every event and delivery.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql, type Kysely } from 'kysely'
import { openDatabase } from '../../src/db/database.js'
import { migrateDownTo, migrateToLatest, migrations } from '../../src/db/migrate.js'
import { backend, postgresSchema } from '../helpers/backend.js'

const BEFORE = '0016_event-size'
const SINCE = Object.keys(migrations).slice(Object.keys(migrations).indexOf('0017_event-queue'))
const AT = '2027-01-01T00:00:00.000Z'

const deliveries = async (db: Kysely<any>) =>
  (
    await sql<{
      event_id: string
      endpoint_id: string
    }>`select e.id as event_id, d.endpoint_id from webhook_deliveries d
join webhook_events e on e.seq = d.event_seq order by e.id, d.endpoint_id`.execute(db)
  ).rows.map((r) => `${r.event_id} -> ${r.endpoint_id}`)

/** A database at 0016 (0017 and after undone) on the pass's backend, with account acct_a. */
async function at0016(t: Parameters<typeof postgresSchema>[0]) {
  const url = backend === 'postgres' ? await postgresSchema(t) : ':memory:'
  const handle = openDatabase(url, { poolSize: 1 })
  t.after(() => handle.close())
  const db = handle.db as Kysely<any>
  await migrateToLatest(db)
  assert.deepEqual(await migrateDownTo(db, BEFORE), [...SINCE].reverse())
  await sql`insert into accounts (id, name, plan, created_at) values ('acct_a', 'a', 'free', ${AT})`.execute(db)
  return db
}

/** An endpoint of acct_a: `types` as event_types stores them. */
const endpoint = (id: string, types: string, enabled: number) =>
  sql`insert into webhook_endpoints (id, account_id, url, description, event_types, enabled, secret, created_at,
updated_at) values (${id}, 'acct_a', 'https://example.com/hook', '', ${types}, ${enabled}, 'sealed', ${AT}, ${AT})`

test('0017: waiting events get deliveries; after it, deliveries come with the event; ids are ordered', async (t) => {
  const db = await at0016(t)
  await endpoint('we_all', '*', 1).execute(db)
  await endpoint('we_orders', ' order.created ', 1).execute(db)
  await endpoint('we_off', '*', 0).execute(db)
  const event = (id: string, type: string, fannedOut: number) =>
    sql`insert into webhook_events (id, account_id, type, data, created_at, fanned_out)
values (${id}, 'acct_a', ${type}, '{}', ${AT}, ${fannedOut})`
  await event('evt_waiting', 'pet.created', 0).execute(db)
  await event('evt_done', 'pet.created', 1).execute(db)
  await sql`insert into webhook_deliveries (event_seq, endpoint_id, account_id, status, attempts, next_attempt_at,
created_at) select seq, 'we_all', 'acct_a', 'delivered', 1, 0, ${AT} from webhook_events where id = 'evt_done'`.execute(
    db,
  )

  // Up to 0017 (and no further: 0021_event-streams replaces its trigger with the endpoints' streams).
  assert.deepEqual(await migrateToLatest(db), SINCE)
  await migrateDownTo(db, '0017_event-queue')
  assert.deepEqual(await deliveries(db), ['evt_done -> we_all', 'evt_waiting -> we_all'])

  const before = Date.now()
  await sql`insert into pets (account_id, name, category_id, status, created_at) values ('acct_a', 'Rex', 1,
'available', ${AT})`.execute(db)
  const made = await sql<{
    id: string
  }>`select id from webhook_events where type = 'pet.created' and data like '%Rex%'`.execute(db)
  const id = made.rows[0]!.id
  assert.match(id, /^evt_[0-9a-f]{32}$/)
  const ms = Number.parseInt(id.slice(4, 16), 16)
  assert.ok(ms >= before - 1000 && ms <= Date.now() + 1000, `the id's time ${ms} is now`)
  assert.deepEqual(
    (await deliveries(db)).filter((d) => d.startsWith(id)),
    [`${id} -> we_all`],
    'made with the event, for the enabled endpoint subscribed to the type',
  )
  const due = await sql<{ at: number | string | bigint }>`select next_attempt_at as at from webhook_deliveries
where status = 'pending' order by seq`.execute(db)
  assert.deepEqual(
    due.rows.map((r) => Number(r.at)),
    [Date.parse(AT), Date.parse(AT)],
    "due at its event's time: the waiting event's and the new one's",
  )

  await sql`insert into webhook_events (id, account_id, type, data, created_at)
values ('evt_test', 'acct_a', 'webhook.test', '{}', ${AT})`.execute(db)
  const tested = (await deliveries(db)).filter((d) => d.startsWith('evt_test'))
  assert.deepEqual(tested, [], 'a test event is not fanned out')

  assert.deepEqual(await migrateDownTo(db, BEFORE), ['0017_event-queue'])
  assert.equal((await deliveries(db)).length, 3, 'down keeps the deliveries')
  assert.equal((await db.selectFrom('webhook_events').select('id').execute()).length, 4, 'and the events')
  assert.deepEqual(await migrateToLatest(db), SINCE)
  assert.equal((await deliveries(db)).length, 3, 'down marks every event fanned out: up again makes none twice')
})

test('0017 run again after a start that died part-way (SQLite commits step by step): no delivery twice', async (t) => {
  const db = await at0016(t)
  await endpoint('we_all', '*', 1).execute(db)
  await sql`insert into webhook_events (id, account_id, type, data, created_at, fanned_out)
values ('evt_waiting', 'acct_a', 'pet.created', '{}', ${AT}, 0)`.execute(db)
  // What the first run left: the waiting event fanned out and marked, its index dropped, the column still there.
  await sql`insert into webhook_deliveries (event_seq, endpoint_id, account_id, status, attempts, next_attempt_at,
created_at) select seq, 'we_all', 'acct_a', 'pending', 0, 0, ${AT} from webhook_events`.execute(db)
  await sql`update webhook_events set fanned_out = 1`.execute(db)
  await sql`drop index webhook_events_waiting`.execute(db)

  assert.deepEqual(await migrateToLatest(db), SINCE)
  assert.deepEqual(await deliveries(db), ['evt_waiting -> we_all'])
})
