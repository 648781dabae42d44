import { sql, type Kysely, type Migration } from 'kysely'
import { dialectOf } from '../database.js'
import { serialId } from './columns.js'

// The operator console and the audit log (issue 24):
// - accounts.suspended_at / suspension_reason: a suspended account's keys are answered 403 account_suspended.
// - audit_events: append-only. On PostgreSQL a trigger refuses every UPDATE, and every DELETE outside the retention
//   job (which sets `petstore.audit_retention` to `on` for its own transaction only). SQLite refuses UPDATE.
// - operators (people, apart from integrator accounts), their single-use setup links, recovery codes (hashes),
//   sessions (hashes of the cookie's id) and failed log-ins.
// - plan_requests: an integrator asks for a higher plan; an admin approves or declines it.
export const consoleAudit: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('accounts').addColumn('suspended_at', 'text').execute()
    await db.schema.alterTable('accounts').addColumn('suspension_reason', 'text').execute()

    await db.schema
      .createTable('audit_events')
      .addColumn('seq', ...serialId(db))
      // ISO instant with milliseconds (sorts as text).
      .addColumn('at', 'text', (c) => c.notNull())
      // 'account' (an integrator), 'operator', 'cli' (actor_id: the operating-system user) or 'system'.
      .addColumn('actor_kind', 'text', (c) => c.notNull())
      .addColumn('actor_id', 'text')
      .addColumn('actor_email', 'text')
      .addColumn('actor_address', 'text')
      .addColumn('action', 'text', (c) => c.notNull())
      // The account the change concerns, if any (what the account page and /portal/activity filter by).
      .addColumn('account_id', 'text')
      .addColumn('target_kind', 'text')
      .addColumn('target_id', 'text')
      // JSON: { before, after } and other details; never a secret or a password.
      .addColumn('changes', 'text')
      .execute()
    await db.schema.createIndex('audit_events_account').on('audit_events').columns(['account_id', 'seq']).execute()
    await db.schema.createIndex('audit_events_at').on('audit_events').column('at').execute()
    await db.schema.createIndex('audit_events_action').on('audit_events').columns(['action', 'seq']).execute()
    // The console filters by actor in any case (lower(actor_email)), or by kind (every `cli` entry).
    await db.schema
      .createIndex('audit_events_actor')
      .on('audit_events')
      .expression(sql`lower(actor_email), seq`)
      .execute()
    await db.schema.createIndex('audit_events_actor_kind').on('audit_events').columns(['actor_kind', 'seq']).execute()

    await db.schema
      .createTable('operators')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('email_key', 'text', (c) => c.notNull().unique())
      // 'admin' or 'support'.
      .addColumn('role', 'text', (c) => c.notNull())
      // Null until the setup link was used.
      .addColumn('password_hash', 'text')
      // Base32 TOTP secret, confirmed at setup; null until then.
      .addColumn('totp_secret', 'text')
      // The last 30-second step whose code was accepted: a code is accepted once.
      .addColumn('totp_last_step', 'bigint')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('disabled_at', 'text')
      .addColumn('password_changed_at', 'bigint')
      .execute()

    await db.schema
      .createTable('operator_tokens')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('operator_id', 'text', (c) => c.notNull().references('operators.id'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      // The TOTP secret offered during setup, until a code from it confirms it.
      .addColumn('pending_secret', 'text')
      .execute()
    await db.schema.createIndex('operator_tokens_operator').on('operator_tokens').column('operator_id').execute()

    await db.schema
      .createTable('operator_recovery_codes')
      .addColumn('code_hash', 'text', (c) => c.primaryKey())
      .addColumn('operator_id', 'text', (c) => c.notNull().references('operators.id'))
      .addColumn('used_at', 'bigint')
      .execute()
    await db.schema
      .createIndex('operator_recovery_codes_operator')
      .on('operator_recovery_codes')
      .column('operator_id')
      .execute()

    await db.schema
      .createTable('operator_sessions')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('operator_id', 'text', (c) => c.notNull().references('operators.id'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('user_agent', 'text')
      .addColumn('address', 'text')
      .execute()
    await db.schema.createIndex('operator_sessions_operator').on('operator_sessions').column('operator_id').execute()

    await db.schema
      .createTable('operator_login_failures')
      .addColumn('seq', ...serialId(db))
      .addColumn('email_key', 'text', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('operator_login_failures_who')
      .on('operator_login_failures')
      .columns(['email_key', 'address', 'at'])
      .execute()
    await db.schema
      .createIndex('operator_login_failures_address')
      .on('operator_login_failures')
      .columns(['address', 'at'])
      .execute()

    await db.schema
      .createTable('plan_requests')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('plan', 'text', (c) => c.notNull())
      .addColumn('note', 'text', (c) => c.notNull())
      // 'pending', 'approved' or 'declined'.
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('decided_at', 'text')
      .addColumn('decided_by', 'text')
      .addColumn('reason', 'text')
      .execute()
    await db.schema.createIndex('plan_requests_state').on('plan_requests').columns(['state', 'created_at']).execute()
    await db.schema.createIndex('plan_requests_account').on('plan_requests').column('account_id').execute()

    if (dialectOf(db) === 'postgres') {
      await sql`create function audit_events_append_only() returns trigger language plpgsql as $$
        begin
          if tg_op = 'DELETE' and current_setting('petstore.audit_retention', true) = 'on' then return old; end if;
          raise exception 'audit_events is append-only: % refused', tg_op;
        end $$`.execute(db)
      await sql`create trigger audit_events_append_only before update or delete on audit_events for each row execute \
function audit_events_append_only()`.execute(db)
      await sql`create trigger audit_events_no_truncate before truncate on audit_events for each statement execute \
function audit_events_append_only()`.execute(db)
    } else {
      await sql`create trigger audit_events_append_only before update on audit_events begin select raise(abort, \
'audit_events is append-only: UPDATE refused'); end`.execute(db)
    }
  },

  async down(db: Kysely<unknown>) {
    for (const table of [
      'plan_requests',
      'operator_login_failures',
      'operator_sessions',
      'operator_recovery_codes',
      'operator_tokens',
      'operators',
      'audit_events',
    ]) {
      await db.schema.dropTable(table).execute()
    }
    if (dialectOf(db) === 'postgres') await sql`drop function audit_events_append_only()`.execute(db)
    await db.schema.alterTable('accounts').dropColumn('suspension_reason').execute()
    await db.schema.alterTable('accounts').dropColumn('suspended_at').execute()
  },
}
