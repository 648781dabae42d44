import { sql, type Kysely, type Migration } from 'kysely'
import { dialectOf } from '../database.js'

// The audit log's trigger checks an entry's age itself (issue 32). Before, on PostgreSQL it let any DELETE through
// in a transaction that had set `petstore.audit_retention` to `on`, which any client may set; SQLite refused no
// DELETE at all. Now a DELETE of an entry younger than 365 days (by the database's clock) is refused on both, and
// on PostgreSQL the triggers fire ALWAYS, also in a session_replication_role = replica session. The service writes
// its own AUDIT_RETENTION_DAYS in at start (src/audit/audit-guard.ts); the definitions are written out here, not
// imported: a migration must do the same thing whatever the code later offers.
const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`

export const auditAge: Migration = {
  async up(db: Kysely<unknown>) {
    if (dialectOf(db) === 'postgres') {
      await sql`create or replace function audit_events_append_only() returns trigger language plpgsql set search_path \
= pg_catalog as $$
        begin
          if tg_op = 'DELETE' then
            if old.at < to_char((now() at time zone 'UTC') - make_interval(days => 365), ${sql.raw(ISO)}) then return \
old; end if;
            raise exception 'audit_events is append-only: DELETE of an entry younger than 365 days refused';
          end if;
          raise exception 'audit_events is append-only: % refused', tg_op;
        end $$`.execute(db)
      await sql`alter table audit_events enable always trigger audit_events_append_only`.execute(db)
      await sql`alter table audit_events enable always trigger audit_events_no_truncate`.execute(db)
    } else {
      await sql`create trigger audit_events_retention before delete on audit_events
        when old.at >= strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-365 days')
        begin select raise(abort, 'audit_events is append-only: DELETE of an entry younger than 365 days refused'); \
end`.execute(db)
    }
  },

  async down(db: Kysely<unknown>) {
    if (dialectOf(db) === 'postgres') {
      await sql`alter table audit_events enable trigger audit_events_append_only`.execute(db)
      await sql`alter table audit_events enable trigger audit_events_no_truncate`.execute(db)
      // 0008's function, as it was (a replaced function keeps no SET it is not given again).
      await sql`create or replace function audit_events_append_only() returns trigger language plpgsql as $$
        begin
          if tg_op = 'DELETE' and current_setting('petstore.audit_retention', true) = 'on' then return old; end if;
          raise exception 'audit_events is append-only: % refused', tg_op;
        end $$`.execute(db)
    } else {
      await sql`drop trigger audit_events_retention`.execute(db)
    }
  },
}
