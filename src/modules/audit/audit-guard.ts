// What keeps the audit log append-only in the database itself: a trigger that refuses UPDATE (and TRUNCATE) and the
// DELETE of any entry younger than AUDIT_RETENTION_DAYS. It measures an entry's age itself, by the database's own
// clock (PostgreSQL's now() read in UTC, SQLite's 'now'), against a number of days written into its definition: no
// setting a client makes for its session changes either, and only the owner of the table can replace the trigger
// (or drop it: what this does not protect against, docs/operators/console.md, "Audit log"). Migration 0011 installs it
// with 365 days; the service writes its own AUDIT_RETENTION_DAYS in at every start (openAndMigrate), when the
// definition differs.
import { sql, type Kysely, type RawBuilder } from 'kysely'
import { dialectOf } from '../../db/database.js'

/** The lock two instances starting at once take to replace the function one after the other ("PS" + "au"). */
const LOCK_CLASS = 0x5053_6175

function checkedDays(days: number): number {
  if (!Number.isSafeInteger(days) || days < 1)
    throw new Error(`audit retention must be a whole number of days ≥ 1, not ${days}`)
  return days
}

/**
 * The instant `days` ago by the database's clock, written as `at` is (ISO 8601, UTC, milliseconds: text sorts as time).
 */
export function auditCutoff(db: Kysely<any>, days: number): RawBuilder<string> {
  const n = sql.lit(checkedDays(days))
  return dialectOf(db) === 'postgres'
    ? sql<string>`to_char((now() at time zone 'UTC') - make_interval(days => ${n}), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
    : sql<string>`strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || ${n} || ' days')`
}

/** PostgreSQL: the trigger function's body. `search_path` is pinned to pg_catalog where it is created (see below). */
const postgresGuardBody = (days: number) =>
  `
begin
  if tg_op = 'DELETE' then
    if old.at < to_char((now() at time zone 'UTC') - ` +
  `make_interval(days => ${checkedDays(days)}), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') then return old; end if;
    raise exception 'audit_events is append-only: DELETE of an entry younger than ${days} days refused';
  end if;
  raise exception 'audit_events is append-only: % refused', tg_op;
end`

/** SQLite: the DELETE trigger, written as sqlite_master keeps it (so that a start can tell it is unchanged). */
const sqliteGuardTrigger = (days: number) =>
  `CREATE TRIGGER audit_events_retention BEFORE DELETE ON audit_events WHEN old.at >= strftime('%Y-%m-%dT%H:%M:%fZ', ` +
  `'now', '-${checkedDays(days)} days') ` +
  `BEGIN SELECT RAISE(ABORT, 'audit_events is append-only: DELETE of an entry younger than ${days} days refused'); END`

/**
 * Writes `days` into the trigger, unless it already says so. On PostgreSQL, under a lock per schema (two instances
 * replacing the function at once would fail with "tuple concurrently updated") and with search_path pinned, so that
 * a client's own now() or operators in another schema are never what the trigger calls. Instances started with
 * different AUDIT_RETENTION_DAYS: the last start decides, and the others' retention jobs are refused (and log it)
 * for what it keeps.
 */
export async function keepAuditEntries(db: Kysely<any>, days: number): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    const body = postgresGuardBody(days)
    await db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${sql.lit(LOCK_CLASS)}, hashtext(current_schema()))`.execute(trx)
      const { rows } = await sql<{
        body: string
      }>`select prosrc as body from pg_proc where oid = 'audit_events_append_only'::regproc`.execute(trx)
      if (rows[0]?.body === body) return
      await sql`create or replace function audit_events_append_only() returns trigger language plpgsql set search_path \
= pg_catalog as ${sql.lit(body)}`.execute(trx)
    })
    return
  }
  const trigger = sqliteGuardTrigger(days)
  const { rows } = await sql<{
    sql: string
  }>`select sql from sqlite_master where type = 'trigger' and name = 'audit_events_retention'`.execute(db)
  if (rows[0]?.sql === trigger) return
  await db.transaction().execute(async (trx) => {
    await sql`drop trigger if exists audit_events_retention`.execute(trx)
    await sql.raw(trigger).execute(trx)
  })
}
