// Migration 0021 (the endpoints' streams) on the run's backend, and the one thing a stream must never do on
// PostgreSQL: skip an event whose transaction commits after a later-numbered one's.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql, type Kysely } from 'kysely'
import { openDatabase } from '../../src/db/database.js'
import { migrateDownTo, migrateToLatest } from '../../src/db/migrate.js'
import type { Database } from '../../src/db/schema.js'
import { createEventStreamsRepository } from '../../src/modules/webhooks/event-streams.repository.js'
import { backend, postgresSchema } from '../helpers/backend.js'
import { createManualClock } from '../../src/kernel/clock.js'

const AT = '2027-01-01T00:00:00.000Z'

async function database(t: Parameters<typeof postgresSchema>[0]) {
  const url = backend === 'postgres' ? await postgresSchema(t) : ':memory:'
  const handle = openDatabase(url, { poolSize: 3 })
  t.after(() => handle.close())
  await migrateToLatest(handle.db)
  await migrateDownTo(handle.db, '0020_teams')
  const db = handle.db as Kysely<any>
  await sql`insert into accounts (id, name, plan, created_at) values ('acct_a', 'a', 'free', ${AT})`.execute(db)
  await sql`insert into webhook_endpoints (id, account_id, url, description, event_types, enabled, secret, created_at,
updated_at) values ('we_all', 'acct_a', 'https://example.com/hook', '', '*', 1, 'sealed', ${AT}, ${AT})`.execute(db)
  return handle.db
}

const event = (id: string) =>
  sql`insert into webhook_events (id, account_id, type, data, created_at) values (${id}, 'acct_a', 'pet.created',
'{}', ${AT})`

const deliveries = async (db: Kysely<Database>) =>
  (
    await sql<{ id: string }>`select e.id from webhook_deliveries d join webhook_events e on e.seq = d.event_seq
order by e.id`.execute(db)
  ).rows.map((r) => r.id)

/** Reads the stream (as the worker does) and moves it past what it read; the events' ids. */
async function readStream(db: Kysely<Database>, { whileOpen = false } = {}) {
  const streams = createEventStreamsRepository({ db, clock: createManualClock() })
  // As runOnce does (other tests' transactions on the server hold PostgreSQL's horizon back for a moment); not
  // while this test holds a transaction open on purpose.
  if (!whileOpen) await streams.caughtUp()
  const claimed = await streams.claim({ streams: 10, perStream: 100, leaseMs: 60_000 })
  await db.transaction().execute((trx) => streams.advance(claimed, trx))
  return claimed.flatMap((s) => s.events.map((e) => e.id))
}

test('0021: events before it keep their deliveries and are not read again; new ones come by the stream', async (t) => {
  const db = await database(t)
  await event('evt_before').execute(db)
  assert.deepEqual(await deliveries(db), ['evt_before'], "0017's trigger made its delivery")

  assert.deepEqual(await migrateToLatest(db), ['0021_event-streams'])
  assert.deepEqual(await readStream(db), [], 'the stream starts after it')
  await event('evt_after').execute(db)
  assert.deepEqual(await deliveries(db), ['evt_before'], 'no delivery row made with an event')
  assert.deepEqual(await readStream(db), ['evt_after'])
  assert.deepEqual(await readStream(db), [], 'read once')

  // Down: an event the stream has not reached gets its delivery, as the trigger would have made it.
  await event('evt_unread').execute(db)
  assert.deepEqual(await migrateDownTo(db, '0020_teams'), ['0021_event-streams'])
  assert.deepEqual(await deliveries(db), ['evt_before', 'evt_unread'])
  await event('evt_trigger_again').execute(db)
  assert.deepEqual(await deliveries(db), ['evt_before', 'evt_trigger_again', 'evt_unread'])
  assert.deepEqual(await migrateToLatest(db), ['0021_event-streams'])
  assert.deepEqual(await readStream(db), [])
})

test('PostgreSQL: an event committed after a later-numbered one is read, not skipped', async (t) => {
  if (backend !== 'postgres') return t.skip('PostgreSQL numbers rows before they commit; SQLite has one writer')
  const db = await database(t)
  await migrateToLatest(db)
  // Every gate opens at the end whatever happened (before the database closes), so a failed assertion fails the
  // test instead of leaving a transaction open for ever.
  const gates: (() => void)[] = []
  const gate = () => {
    let open!: () => void
    const wait = new Promise<void>((resolve) => (open = resolve))
    gates.push(open)
    return { wait, open: () => open() }
  }

  try {
    await outOfOrder(db, gate)
  } finally {
    for (const open of gates) open()
  }
})

async function outOfOrder(db: Kysely<Database>, gate: () => { wait: Promise<void>; open: () => void }) {
  // A records evt_a (numbered first) and stays open while B records evt_b and commits.
  const aRecorded = gate()
  const aCommit = gate()
  const a = db.transaction().execute(async (trx) => {
    await event('evt_a').execute(trx)
    aRecorded.open()
    await aCommit.wait
  })
  await aRecorded.wait
  await event('evt_b').execute(db)
  assert.deepEqual(await readStream(db, { whileOpen: true }), [], "evt_b waits while A's transaction runs")
  aCommit.open()
  await a
  assert.deepEqual(await readStream(db), ['evt_a', 'evt_b'])

  // C takes its transaction id first, then D records evt_d and commits, then C records evt_c (numbered after).
  const cStarted = gate()
  const cGo = gate()
  const c = db.transaction().execute(async (trx) => {
    await sql`select pg_current_xact_id()`.execute(trx)
    cStarted.open()
    await cGo.wait
    await event('evt_c').execute(trx)
  })
  await cStarted.wait
  await event('evt_d').execute(db)
  assert.deepEqual(await readStream(db, { whileOpen: true }), [], "evt_d waits for C's older transaction")
  cGo.open()
  await c
  assert.deepEqual(await readStream(db), ['evt_c', 'evt_d'], 'in the order of their transactions')
}
