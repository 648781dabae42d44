// The append-only audit log. Changes write their entry with `writeAudit` on the executor of their own transaction,
// so an entry exists exactly when its change was committed. Nothing updates an entry; the retention job deletes
// those older than AUDIT_RETENTION_DAYS, and a trigger refuses any younger one's deletion (audit-guard.ts).
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/schema.js'
import { auditCutoff } from './audit-guard.js'
import type { AuditActor, AuditEntry, AuditEvent, AuditAction } from './audit-event.js'

function actorColumns(actor: AuditActor) {
  switch (actor.kind) {
    case 'account':
      return {
        actor_kind: actor.kind,
        actor_id: actor.accountId,
        actor_email: actor.email,
        actor_address: actor.address ?? null,
      }
    case 'operator':
      return {
        actor_kind: actor.kind,
        actor_id: actor.operatorId,
        actor_email: actor.email,
        actor_address: actor.address ?? null,
      }
    case 'cli':
      return { actor_kind: actor.kind, actor_id: actor.user, actor_email: null, actor_address: null }
    case 'system':
      return { actor_kind: actor.kind, actor_id: null, actor_email: null, actor_address: null }
  }
}

/** Where the service writes each entry as a log line too (set by `serve`: one logger per process). */
let entryLog: { info: (fields: object, msg: string) => void } | undefined

/**
 * Every entry written from now on is also an info-level JSON log line (`"msg":"audit entry"`, with the entry's seq,
 * time, actor, action, target and changes: never a secret, as the entry itself), for shipping the log elsewhere. It
 * is written with the entry, inside its change's transaction: a transaction that fails after it leaves a line whose
 * entry (and change) was rolled back. `undefined` stops it.
 */
export function logAuditEntries(log: typeof entryLog): void {
  entryLog = log
}

/** Appends one entry, in `executor`'s transaction (the change's own). `at`: epoch ms (the change's clock). */
export async function writeAudit(
  executor: Kysely<Database>,
  at: number,
  actor: AuditActor,
  entry: AuditEntry,
): Promise<void> {
  const row = {
    at: new Date(at).toISOString(),
    ...actorColumns(actor),
    action: entry.action,
    account_id: entry.accountId ?? null,
    target_kind: entry.target?.kind ?? null,
    target_id: entry.target?.id ?? null,
    changes: entry.changes === undefined ? null : JSON.stringify(entry.changes),
  }
  if (entryLog === undefined) return void (await executor.insertInto('audit_events').values(row).execute())
  const { seq } = await executor.insertInto('audit_events').values(row).returning('seq').executeTakeFirstOrThrow()
  // The shape `audit list --json` prints.
  const logged = {
    seq: String(seq),
    at: row.at,
    actor: { kind: row.actor_kind, id: row.actor_id, email: row.actor_email, address: row.actor_address },
  }
  entryLog.info(
    {
      audit: {
        ...logged,
        action: entry.action,
        accountId: row.account_id,
        target: entry.target ?? null,
        changes: entry.changes ?? null,
      },
    },
    'audit entry',
  )
}

export interface AuditFilter {
  accountId?: string
  /** An actor's email (operators, integrators), or `cli`. Exact match, case-insensitive. */
  actor?: string
  action?: AuditAction
  /** ISO instants: from `since` (inclusive) to `until` (exclusive). */
  since?: string
  until?: string
  /** Paging: entries older than this seq (the last one of the previous page). */
  beforeSeq?: bigint
  limit: number
}

export function createAuditRepository({ db, clock }: { db: Kysely<Database>; clock: { now: () => number } }) {
  return {
    /**
     * Appends one entry on its own, for an event that changes nothing in the database (a log-in, a ban lifted in
     * the rate-limit store). A change to rows writes its entry in its own transaction instead (`writeAudit`).
     */
    record: (actor: AuditActor, entry: AuditEntry): Promise<void> => writeAudit(db, clock.now(), actor, entry),

    /** Newest first. */
    async list(filter: AuditFilter): Promise<AuditEvent[]> {
      let q = db.selectFrom('audit_events').selectAll()
      if (filter.accountId !== undefined) q = q.where('account_id', '=', filter.accountId)
      if (filter.actor !== undefined) {
        const actor = filter.actor.toLowerCase()
        q = actor === 'cli' ? q.where('actor_kind', '=', 'cli') : q.where(sql<string>`lower(actor_email)`, '=', actor)
      }
      if (filter.action !== undefined) q = q.where('action', '=', filter.action)
      if (filter.since !== undefined) q = q.where('at', '>=', filter.since)
      if (filter.until !== undefined) q = q.where('at', '<', filter.until)
      if (filter.beforeSeq !== undefined) q = q.where('seq', '<', filter.beforeSeq)
      const rows = await q.orderBy('seq', 'desc').limit(filter.limit).execute()
      return rows.map((r) => ({
        seq: String(r.seq),
        at: r.at,
        actor: { kind: r.actor_kind, id: r.actor_id, email: r.actor_email, address: r.actor_address },
        action: r.action as AuditAction,
        accountId: r.account_id,
        target: r.target_kind === null || r.target_id === null ? null : { kind: r.target_kind, id: r.target_id },
        changes: r.changes === null ? null : (JSON.parse(r.changes) as Record<string, unknown>),
      }))
    },

    /**
     * The retention job: deletes entries more than `days` old by the database's clock, the one the trigger measures
     * by (so it lets each of them go, whatever the service's own clock says); returns how many.
     */
    async purge(days: number): Promise<number> {
      const result = await db.deleteFrom('audit_events').where('at', '<', auditCutoff(db, days)).executeTakeFirst()
      return Number(result.numDeletedRows)
    },
  }
}

export type AuditRepository = ReturnType<typeof createAuditRepository>

/**
 * Runs `work` and writes the account's audit entry (targeting the account) in one transaction, so the entry exists
 * exactly when the change was committed.
 */
export function accountChange<T>(
  db: Kysely<Database>,
  at: () => number,
  entry: { accountId: string; actor: AuditActor; action: AuditAction; changes: Record<string, unknown> },
  work: (trx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const result = await work(trx)
    const { accountId, actor, action, changes } = entry
    await writeAudit(trx, at(), actor, { action, accountId, target: { kind: 'account', id: accountId }, changes })
    return result
  })
}
