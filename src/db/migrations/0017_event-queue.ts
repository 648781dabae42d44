import { sql, type Kysely, type Migration } from 'kysely'
import { dialectOf, type Dialect } from '../database.js'
import { EVENTS, rowEventTriggers } from './0015_webhook-triggers.js'
import { cappedMessage } from './0016_event-size.js'

// Cheaper events (BENCHMARKS.md entry 29), two changes:
// - Event ids ordered by time: `evt_`, the milliseconds in 12 hex digits, 80 random bits in 20 (the shape of
//   modules/webhooks/event-id.ts). A random id dirtied a page of its own in the unique index at every event. Every
//   row event's trigger is made again with it (the message events keep 0016's capped data); ids made before keep
//   their random shape: both are `evt_` and 32 hex digits.
// - An event's deliveries are made by a trigger on webhook_events, in the transaction that records the event, one
//   per enabled endpoint of the account subscribed to its type, due at the event's time (as a retry is due at its
//   own: the oldest due goes first). The worker no longer fans out, so `fanned_out`, its index, and the update of
//   every event row after it (on PostgreSQL a new entry in each of the table's indexes) go. A test event
//   (webhook.test) is sent to the one endpoint it was asked for (modules/webhooks/events.repository.ts), not fanned
//   out.
// Written out here, not imported: a migration must do the same thing whatever the code later says.
const orderedId = (d: Dialect) =>
  d === 'postgres'
    ? `'evt_' || lpad(to_hex(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0') || \
substr(md5(gen_random_uuid()::text), 1, 20)`
    : `'evt_' || printf('%012x', CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)) || \
lower(hex(randomblob(10)))`

const triggers = EVENTS.map((e) => (e.table === 'messages' ? { ...e, data: cappedMessage } : e))

/** An ISO 8601 instant of the row as epoch milliseconds. */
const epochMs = (d: Dialect, iso: string) =>
  d === 'postgres'
    ? `floor(extract(epoch FROM CAST(${iso} AS timestamptz)) * 1000)::bigint`
    : `CAST((julianday(${iso}) - 2440587.5) * 86400000.0 AS INTEGER)`

/** The deliveries of the event NEW (or, with `from`, of the events of that query, as `ev`). */
const deliveriesOf = (d: Dialect, ev: string, from = '') =>
  `INSERT INTO webhook_deliveries (event_seq, endpoint_id, account_id, status, attempts, next_attempt_at, \
created_at) SELECT ${ev}.seq, ep.id, ${ev}.account_id, 'pending', 0, ${epochMs(d, `${ev}.created_at`)}, \
${ev}.created_at FROM ${from}webhook_endpoints ep WHERE ep.account_id = ${ev}.account_id AND ep.enabled = 1 AND \
(ep.event_types = '*' OR ${d === 'postgres' ? 'strpos' : 'instr'}(ep.event_types, ' ' || ${ev}.type || ' ') > 0)`

// Each step can run again: on SQLite a migration's statements commit one by one, so a start that died part-way
// through this one runs it again from the top.
export function fanOutTrigger(d: Dialect): string[] {
  const when = `NEW.type <> 'webhook.test'`
  if (d === 'postgres')
    return [
      `CREATE OR REPLACE FUNCTION webhook_event_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
${deliveriesOf(d, 'NEW')}; RETURN NULL; END $$`,
      'DROP TRIGGER IF EXISTS webhook_event_deliveries ON webhook_events',
      `CREATE TRIGGER webhook_event_deliveries AFTER INSERT ON webhook_events FOR EACH ROW WHEN (${when}) \
EXECUTE FUNCTION webhook_event_deliveries()`,
    ]
  return [
    'DROP TRIGGER IF EXISTS webhook_event_deliveries',
    `CREATE TRIGGER webhook_event_deliveries AFTER INSERT ON webhook_events WHEN ${when} BEGIN \
${deliveriesOf(d, 'NEW')}; END`,
  ]
}

export const eventQueue: Migration = {
  async up(db: Kysely<unknown>) {
    const d = dialectOf(db)
    for (const statement of rowEventTriggers(d, triggers, { replace: true, id: orderedId }))
      await sql.raw(statement).execute(db)
    for (const statement of fanOutTrigger(d)) await sql.raw(statement).execute(db)
    // The events the worker had not fanned out yet get their deliveries now, as it would have made them, and are
    // marked in the same transaction: a run again finds none. On PostgreSQL an instance of the version before, still
    // running, must not fan the same events out meanwhile (the run is one transaction: the lock lasts to its end).
    const fanOutWaiting = async (trx: Kysely<unknown>) => {
      if (d === 'postgres') await sql`LOCK TABLE webhook_events IN EXCLUSIVE MODE`.execute(trx)
      const waiting = `${deliveriesOf(d, 'ev', 'webhook_events ev, ')} AND ev.fanned_out = 0`
      await sql.raw(`${waiting} AND ev.type <> 'webhook.test'`).execute(trx)
      await sql`UPDATE webhook_events SET fanned_out = 1 WHERE fanned_out = 0`.execute(trx)
    }
    if (d === 'postgres') await fanOutWaiting(db)
    else await db.transaction().execute(fanOutWaiting)
    await db.schema.dropIndex('webhook_events_waiting').ifExists().execute()
    await db.schema.alterTable('webhook_events').dropColumn('fanned_out').execute()
  },

  async down(db: Kysely<unknown>) {
    const d = dialectOf(db)
    const on = d === 'postgres' ? ' ON webhook_events' : ''
    await sql.raw(`DROP TRIGGER IF EXISTS webhook_event_deliveries${on}`).execute(db)
    if (d === 'postgres') await sql.raw('DROP FUNCTION IF EXISTS webhook_event_deliveries()').execute(db)
    await db.schema
      .alterTable('webhook_events')
      .addColumn('fanned_out', 'integer', (c) => c.notNull().defaultTo(0))
      .execute()
    // Every event kept has its deliveries already.
    await sql`update webhook_events set fanned_out = 1`.execute(db)
    await db.schema
      .createIndex('webhook_events_waiting')
      .on('webhook_events')
      .column('seq')
      .where(sql.ref('fanned_out'), '=', 0)
      .execute()
    for (const statement of rowEventTriggers(d, triggers, { replace: true })) await sql.raw(statement).execute(db)
  },
}
