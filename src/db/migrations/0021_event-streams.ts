import { sql, type Kysely, type Migration } from 'kysely'
import { dialectOf } from '../database.js'
import { fanOutTrigger } from './0017_event-queue.js'

// An endpoint's first attempts read the events from a position of its own (BENCHMARKS.md entry 31): no delivery row
// is made with each event any more. A delivery row is made only for what needs a state of its own: a first attempt
// that failed (its retries), a test event, an event sent again. The trigger of 0017_event-queue goes; each endpoint
// gets its stream's position (`stream_seq`) and lease (`stream_locked_until`).
//
// On PostgreSQL sequence numbers are handed out when rows are inserted, not when they commit: an event numbered 10
// may commit after one numbered 11, and a position past 11 would skip it. There each event notes its transaction
// (`tx`, the default) and a stream reads in (tx, seq) order only the events of transactions older than every one
// still running (`pg_snapshot_xmin`), which have all ended: a transaction that commits later has a higher id than
// any position reached. Events recorded before this migration have no `tx` and are never read from a stream (their
// deliveries were made by the trigger). SQLite has one writer: events commit in `seq` order, and `tx` stays 0.
// PostgreSQL runs a migration in one transaction; SQLite would commit its statements one by one, so a start that died
// part-way could not run it again (a column already there): there it runs in a transaction of its own.
const atomically = (db: Kysely<unknown>, work: (executor: Kysely<unknown>) => Promise<void>) =>
  dialectOf(db) === 'postgres' ? work(db) : db.transaction().execute(work)

export const eventStreams: Migration = {
  up: (db) => atomically(db, up),
  down: (db) => atomically(db, down),
}

async function up(db: Kysely<unknown>) {
  const onPostgres = dialectOf(db) === 'postgres'
  if (onPostgres) {
    await sql`LOCK TABLE webhook_events IN EXCLUSIVE MODE`.execute(db)
    await sql.raw('DROP TRIGGER IF EXISTS webhook_event_deliveries ON webhook_events').execute(db)
    await sql.raw('DROP FUNCTION IF EXISTS webhook_event_deliveries()').execute(db)
    // Added without a default, then given one: no rewrite of the table, and the rows before keep null.
    await sql.raw('ALTER TABLE webhook_events ADD COLUMN tx bigint').execute(db)
    await sql
      .raw('ALTER TABLE webhook_events ALTER COLUMN tx SET DEFAULT pg_current_xact_id()::text::bigint')
      .execute(db)
    await sql.raw('CREATE INDEX webhook_events_stream ON webhook_events (account_id, tx, seq)').execute(db)
  } else {
    await sql.raw('DROP TRIGGER IF EXISTS webhook_event_deliveries').execute(db)
    await db.schema.alterTable('webhook_events').addColumn('tx', 'bigint').execute()
  }
  // Every read of the attempts' log is of one endpoint's (webhook_attempts_endpoint): this index only cost each
  // attempt a write.
  await db.schema.dropIndex('webhook_attempts_account').ifExists().execute()
  const endpoints = db.schema.alterTable('webhook_endpoints')
  await endpoints.addColumn('stream_seq', 'bigint', (c) => c.notNull().defaultTo(0)).execute()
  await endpoints.addColumn('stream_tx', 'bigint', (c) => c.notNull().defaultTo(0)).execute()
  await endpoints.addColumn('stream_locked_until', 'bigint').execute()
  // Every event recorded so far has its deliveries: the streams start after the last. On PostgreSQL, from the
  // oldest transaction still running: one that records an event once this commits is read (an event it recorded
  // before, with its deliveries, may go out twice: at least once).
  const tx = onPostgres ? sql`pg_snapshot_xmin(pg_current_snapshot())::text::bigint - 1` : sql`0`
  await sql`UPDATE webhook_endpoints SET stream_tx = ${tx}, stream_seq = coalesce((SELECT max(ev.seq) FROM
webhook_events ev WHERE ev.account_id = webhook_endpoints.account_id), 0)`.execute(db)
}

async function down(db: Kysely<unknown>) {
  const onPostgres = dialectOf(db) === 'postgres'
  // The events a stream had not reached yet get their deliveries, as the trigger would have made them.
  const after = onPostgres ? '(ev.tx, ev.seq) > (ep.stream_tx, ep.stream_seq)' : 'ev.seq > ep.stream_seq'
  await sql
    .raw(`INSERT INTO webhook_deliveries (event_seq, endpoint_id, account_id, status, attempts, \
next_attempt_at, created_at) SELECT ev.seq, ep.id, ev.account_id, 'pending', 0, 0, ev.created_at \
FROM webhook_endpoints ep JOIN webhook_events ev ON ev.account_id = ep.account_id AND ${after} \
WHERE ep.enabled = 1 AND ev.type <> 'webhook.test' AND (ep.event_types = '*' OR \
${onPostgres ? 'strpos' : 'instr'}(ep.event_types, ' ' || ev.type || ' ') > 0)`)
    .execute(db)
  for (const column of ['stream_locked_until', 'stream_tx', 'stream_seq'])
    await db.schema.alterTable('webhook_endpoints').dropColumn(column).execute()
  if (onPostgres) await sql.raw('DROP INDEX IF EXISTS webhook_events_stream').execute(db)
  await db.schema.alterTable('webhook_events').dropColumn('tx').execute()
  for (const statement of fanOutTrigger(dialectOf(db))) await sql.raw(statement).execute(db)
  await db.schema
    .createIndex('webhook_attempts_account')
    .on('webhook_attempts')
    .columns(['account_id', 'seq'])
    .execute()
}
