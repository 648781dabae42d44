// The delivery queue (webhook_deliveries): one row per event and endpoint, made when the worker fans an event out,
// claimed under a lease (on PostgreSQL with FOR UPDATE SKIP LOCKED, so instances never claim the same row), and
// settled with its attempt's log row in one transaction. A worker that dies mid-attempt lets its lease run out:
// the delivery is claimed again, by any instance.
import { sql, type Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import { dialectOf } from '../../db/database.js'
import type { Database } from '../../db/schema.js'
import { kyselyEngine, type Engine } from '../../db/engine.js'
import { subscribedSql } from './subscribed-sql.js'

export interface ClaimedDelivery {
  seq: bigint
  endpointId: string
  accountId: string
  /** Attempts so far, this one included. */
  attempts: number
  event: { id: string; type: string; data: string; created_at: string }
}

export interface AttemptRecord {
  delivery: ClaimedDelivery
  attemptedAt: number
  statusCode?: number
  errorClass?: string
  error?: string
  durationMs: number
  responseExcerpt?: string
  /** What becomes of the delivery: delivered, another attempt at `retryAt`, or failed for good. */
  outcome: { kind: 'delivered' } | { kind: 'retry'; retryAt: number } | { kind: 'failed' }
}

export function createDeliveriesRepository({
  db,
  clock,
  engine = kyselyEngine(db),
}: {
  db: Kysely<Database>
  clock: Clock
  engine?: Engine
}) {
  const onPostgres = dialectOf(db) === 'postgres'
  /**
   * Writes the attempts' log rows and their deliveries' new states (in `executor`'s transaction): one INSERT for the
   * rows, one UPDATE for each final state; a retry's own time each.
   */
  async function record(attempts: readonly AttemptRecord[], executor: Kysely<Database>): Promise<void> {
    const settledAt = new Date(clock.now()).toISOString()
    await executor
      .insertInto('webhook_attempts')
      .values(
        attempts.map(({ delivery, ...attempt }) => ({
          delivery_seq: delivery.seq,
          account_id: delivery.accountId,
          endpoint_id: delivery.endpointId,
          event_id: delivery.event.id,
          event_type: delivery.event.type,
          attempted_at: new Date(attempt.attemptedAt).toISOString(),
          status_code: attempt.statusCode ?? null,
          error_class: attempt.errorClass ?? null,
          error: attempt.error ?? null,
          duration_ms: Math.round(attempt.durationMs),
          response_excerpt: attempt.responseExcerpt ?? null,
        })),
      )
      .execute()
    for (const status of ['delivered', 'failed'] as const) {
      const seqs = attempts.filter((a) => a.outcome.kind === status).map((a) => a.delivery.seq)
      if (seqs.length === 0) continue
      await executor
        .updateTable('webhook_deliveries')
        .set({ status, locked_until: null, settled_at: settledAt })
        .where('seq', 'in', seqs)
        .execute()
    }
    for (const { delivery, outcome } of attempts) {
      if (outcome.kind !== 'retry') continue
      await executor
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: BigInt(outcome.retryAt), locked_until: null })
        .where('seq', '=', delivery.seq)
        .execute()
    }
  }

  // The queue's two partial indexes (`status = 'pending'`, `fanned_out = 0`) serve a query only when it names the
  // same value as a literal: SQLite does not match a bound parameter to a partial index's condition, and scanned
  // the whole table (every delivery of the retention period) at every claim.

  /** Makes the deliveries of up to `limit` new events (one per endpoint subscribed now); returns how many events. */
  async function fanOutIn(trx: Kysely<Database>, limit: number): Promise<number> {
    let waiting = trx
      .selectFrom('webhook_events')
      .select('seq')
      .where('fanned_out', '=', sql.lit(0))
      .orderBy('seq')
      .limit(limit)
    if (onPostgres) waiting = waiting.forUpdate().skipLocked()
    const seqs = (await waiting.execute()).map((r) => BigInt(r.seq))
    if (seqs.length === 0) return 0
    const now = clock.now()
    await sql`insert into webhook_deliveries (event_seq, endpoint_id, account_id, status, attempts, next_attempt_at,
created_at) select ev.seq, ep.id, ev.account_id, 'pending', 0, ${BigInt(now)}, ${new Date(now).toISOString()}
from webhook_events ev join webhook_endpoints ep on ep.account_id = ev.account_id and ep.enabled = 1
and ${subscribedSql(db, 'ep.event_types', sql<string>`ev.type`)}
where ev.seq in (${sql.join(seqs)})`.execute(trx)
    await trx.updateTable('webhook_events').set({ fanned_out: 1 }).where('seq', 'in', seqs).execute()
    return seqs.length
  }

  /** Claims up to `limit` due deliveries, oldest due first, for `leaseMs`; counts the attempt. */
  function claimIn(trx: Kysely<Database>, limit: number, leaseMs: number) {
    const now = BigInt(clock.now())
    let due = trx
      .selectFrom('webhook_deliveries')
      .select('seq')
      .where('status', '=', sql.lit('pending'))
      .where('next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
      .orderBy('next_attempt_at')
      .orderBy('seq')
      .limit(limit)
    if (onPostgres) due = due.forUpdate().skipLocked()
    return trx
      .updateTable('webhook_deliveries')
      .set((eb) => ({ locked_until: now + BigInt(leaseMs), attempts: eb('attempts', '+', 1) }))
      .where('seq', 'in', due)
      .returning(['seq', 'event_seq', 'endpoint_id', 'account_id', 'attempts'])
      .execute()
  }

  return {
    /**
     * Fans out up to `fanOut` new events, then claims up to `limit` due deliveries (theirs among them) for `leaseMs`,
     * in one transaction: each commit is a disk flush on SQLite, which holds up the event loop.
     */
    async claimDue({
      limit,
      leaseMs,
      fanOut = 0,
    }: {
      limit: number
      leaseMs: number
      fanOut?: number
    }): Promise<ClaimedDelivery[]> {
      const claimed = await engine.transaction(async (trx) => {
        if (fanOut > 0) await fanOutIn(trx, fanOut)
        return claimIn(trx, limit, leaseMs)
      })
      if (claimed.length === 0) return []
      const events = await db
        .selectFrom('webhook_events')
        .select(['seq', 'id', 'type', 'data', 'created_at'])
        .where(
          'seq',
          'in',
          claimed.map((c) => c.event_seq),
        )
        .execute()
      const bySeq = new Map(events.map((e) => [String(e.seq), e]))
      return claimed.flatMap((c) => {
        const event = bySeq.get(String(c.event_seq))
        if (event === undefined) return []
        return [
          {
            seq: BigInt(c.seq),
            endpointId: c.endpoint_id,
            accountId: c.account_id,
            attempts: Number(c.attempts),
            event: { id: event.id, type: event.type, data: event.data, created_at: event.created_at },
          },
        ]
      })
    },

    /** The attempts of a batch and their deliveries' new states, in one transaction (shared with the turn's writes). */
    async recordAll(attempts: readonly AttemptRecord[]): Promise<void> {
      if (attempts.length === 0) return
      await engine.transaction((trx) => record(attempts, trx))
    },

    /** Fails what is still pending for an endpoint that is gone or disabled (nothing more will be tried). */
    async failPendingOf(endpointId: string, executor: Kysely<Database> = db): Promise<void> {
      await executor
        .updateTable('webhook_deliveries')
        .set({ status: 'failed', locked_until: null, settled_at: new Date(clock.now()).toISOString() })
        .where('endpoint_id', '=', endpointId)
        .where('status', '=', 'pending')
        .execute()
    },
  }
}

export type DeliveriesRepository = ReturnType<typeof createDeliveriesRepository>
