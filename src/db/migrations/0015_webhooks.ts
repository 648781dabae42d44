import { sql, type Kysely, type Migration } from 'kysely'
import { dialectOf } from '../database.js'
import { serialId } from './columns.js'
import { dropRowEventTriggers, rowEventTriggers } from './0015_webhook-triggers.js'

// Webhooks for integrators (issue 36): the endpoints an account registers, the events recorded for it (the outbox,
// written in the transaction of the change itself), one delivery per event and endpoint with its retry state, and
// the log of every attempt. Events of rows (pets, orders, messages) are recorded by triggers (0015_webhook-triggers).
// Keys that had every scope get the two new ones, so "every scope" keeps meaning what it says.
const ALL_SCOPES_BEFORE = 'pets:read pets:write orders:read orders:write messages:write'
const ALL_SCOPES_AFTER = `${ALL_SCOPES_BEFORE} webhooks:read webhooks:write`

export const webhooks: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('webhook_endpoints')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      // `*` (every type, those added later included) or the chosen types, each with a space on both sides.
      .addColumn('event_types', 'text', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull())
      // Why it was disabled: `integrator`, `gone` (a 410), `failing`, `operator`; null while enabled.
      .addColumn('disabled_reason', 'text')
      // Sealed (AES-256-GCM, kernel/secret-box.ts) with the endpoint's id as context.
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('previous_secret', 'text')
      .addColumn('previous_secret_until', 'bigint')
      // Epoch ms of the first failed attempt since the last success: the endpoint is disabled when it is old enough.
      .addColumn('failing_since', 'bigint')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute()
    await db.schema.createIndex('webhook_endpoints_account').on('webhook_endpoints').column('account_id').execute()

    await db.schema
      .createTable('webhook_events')
      .addColumn('seq', ...serialId(db))
      .addColumn('id', 'text', (c) => c.notNull().unique())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      // The event's `data` as JSON text, int64 ids exact.
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      // 0 until the worker has made its deliveries (one per endpoint subscribed then).
      .addColumn('fanned_out', 'integer', (c) => c.notNull().defaultTo(0))
      .execute()
    await db.schema.createIndex('webhook_events_account').on('webhook_events').columns(['account_id', 'seq']).execute()
    await db.schema
      .createIndex('webhook_events_account_type')
      .on('webhook_events')
      .columns(['account_id', 'type', 'seq'])
      .execute()
    await db.schema
      .createIndex('webhook_events_waiting')
      .on('webhook_events')
      .column('seq')
      .where(sql.ref('fanned_out'), '=', 0)
      .execute()

    await db.schema
      .createTable('webhook_deliveries')
      .addColumn('seq', ...serialId(db))
      .addColumn('event_seq', 'bigint', (c) => c.notNull())
      .addColumn('endpoint_id', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      // `pending` (due at next_attempt_at), `delivered`, `failed` (after the last attempt, or its endpoint gone).
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
      .addColumn('locked_until', 'bigint')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('settled_at', 'text')
      .execute()
    await db.schema
      .createIndex('webhook_deliveries_due')
      .on('webhook_deliveries')
      .columns(['next_attempt_at', 'seq'])
      .where(sql.ref('status'), '=', 'pending')
      .execute()
    await db.schema
      .createIndex('webhook_deliveries_event')
      .on('webhook_deliveries')
      .columns(['event_seq', 'endpoint_id'])
      .execute()

    await db.schema
      .createTable('webhook_attempts')
      .addColumn('seq', ...serialId(db))
      .addColumn('delivery_seq', 'bigint', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('endpoint_id', 'text', (c) => c.notNull())
      .addColumn('event_id', 'text', (c) => c.notNull())
      .addColumn('event_type', 'text', (c) => c.notNull())
      .addColumn('attempted_at', 'text', (c) => c.notNull())
      // The receiver's status code, or null when none came back (error_class says why).
      .addColumn('status_code', 'integer')
      .addColumn('error_class', 'text')
      .addColumn('error', 'text')
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .addColumn('response_excerpt', 'text')
      .execute()
    await db.schema
      .createIndex('webhook_attempts_endpoint')
      .on('webhook_attempts')
      .columns(['endpoint_id', 'seq'])
      .execute()
    await db.schema
      .createIndex('webhook_attempts_account')
      .on('webhook_attempts')
      .columns(['account_id', 'seq'])
      .execute()

    for (const statement of rowEventTriggers(dialectOf(db))) await sql.raw(statement).execute(db)
    await sql`update api_keys set scopes = ${ALL_SCOPES_AFTER} where scopes = ${ALL_SCOPES_BEFORE}`.execute(db)
  },

  async down(db: Kysely<unknown>) {
    await sql`update api_keys set scopes = ${ALL_SCOPES_BEFORE} where scopes = ${ALL_SCOPES_AFTER}`.execute(db)
    for (const statement of dropRowEventTriggers(dialectOf(db))) await sql.raw(statement).execute(db)
    for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhook_events', 'webhook_endpoints'])
      await db.schema.dropTable(table).execute()
  },
}
