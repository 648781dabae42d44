// The delivery queue (webhook_deliveries): a row for each delivery that needs a state of its own (a first attempt
// from an endpoint's stream that failed, and its retries; a test event; an event sent again; 0021_event-streams),
// claimed under a lease (on PostgreSQL with FOR UPDATE SKIP LOCKED, so instances never claim the same row), and
// settled with its attempt's log row in one transaction. A worker that dies mid-attempt lets its lease run out: the
// delivery is claimed again, by any instance.
import { sql, type Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import { dialectOf } from '../../db/database.js'
import type { Database } from '../../db/schema.js'
import { kyselyEngine, type Engine } from '../../db/engine.js'
import type { AttemptRecord, ClaimedDelivery } from './claimed-delivery.js'

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
  // PostgreSQL's text holds no NUL character (and refuses `\u0000` in JSON): a receiver's answer may have one. Kept
  // as U+FFFD on both databases; refused, it failed the whole batch's record, whose deliveries then went out again.
  const storable = (text: string | undefined) => (text === undefined ? null : text.replaceAll('\u0000', '\uFFFD'))
  // Rows go to the database as one JSON array parameter: one statement whatever the batch's size, and no
  // placeholder per value to build, send and parse (eleven per attempt). On PostgreSQL as jsonb: each `->>` of a
  // `json` element parses the element's text again (eleven times a row); jsonb is parsed once.
  const elements = sql.raw(onPostgres ? 'jsonb_array_elements' : 'json_each')
  const json = (value: unknown) => (onPostgres ? sql`cast(${JSON.stringify(value)} as jsonb)` : JSON.stringify(value))
  const field = (name: string, type: 'bigint' | 'integer' | 'text') =>
    sql`cast(value ->> ${sql.lit(name)} as ${sql.raw(type)})`
  const seqs = (list: readonly bigint[]) =>
    sql`(select ${field('s', 'bigint')} from ${elements}(${json(list.map((s) => ({ s: String(s) })))}))`

  /**
   * Writes the attempts' log rows and their deliveries' new states (in `executor`'s transaction): one INSERT for the
   * rows, one UPDATE for each final state; a retry's own time each.
   */
  async function record(attempts: readonly AttemptRecord[], executor: Kysely<Database>): Promise<void> {
    const settledAt = new Date(clock.now()).toISOString()
    const rows = attempts.map(({ delivery, ...attempt }) => ({
      // 0: a first attempt from the endpoint's stream (its delivery row, if it failed, is made below).
      d: String(delivery.seq ?? 0),
      a: delivery.accountId,
      p: delivery.endpointId,
      e: delivery.event.id,
      t: delivery.event.type,
      at: new Date(attempt.attemptedAt).toISOString(),
      c: attempt.statusCode ?? null,
      k: attempt.errorClass ?? null,
      m: storable(attempt.error),
      ms: Math.round(attempt.durationMs),
      x: storable(attempt.responseExcerpt),
    }))
    await sql`insert into webhook_attempts (delivery_seq, account_id, endpoint_id, event_id, event_type, attempted_at,
status_code, error_class, error, duration_ms, response_excerpt) select ${field('d', 'bigint')}, ${field('a', 'text')},
${field('p', 'text')}, ${field('e', 'text')}, ${field('t', 'text')}, ${field('at', 'text')}, ${field('c', 'integer')},
${field('k', 'text')}, ${field('m', 'text')}, ${field('ms', 'integer')}, ${field('x', 'text')}
from ${elements}(${json(rows)})`.execute(executor)
    await firstFailures(attempts, settledAt, executor)
    const queued = attempts.filter((a) => a.delivery.seq !== undefined)
    for (const status of ['delivered', 'failed'] as const) {
      const settled = queued.filter((a) => a.outcome.kind === status).map((a) => a.delivery.seq!)
      if (settled.length === 0) continue
      await sql`update webhook_deliveries set status = ${status}, locked_until = null, settled_at = ${settledAt}
where seq in ${seqs(settled)}`.execute(executor)
    }
    for (const { delivery, outcome } of queued) {
      if (outcome.kind !== 'retry') continue
      await executor
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: BigInt(outcome.retryAt), locked_until: null })
        .where('seq', '=', delivery.seq!)
        .execute()
    }
  }

  /** A row for each first attempt from a stream that did not succeed: its retries' state, or its failure's. */
  async function firstFailures(attempts: readonly AttemptRecord[], settledAt: string, executor: Kysely<Database>) {
    const rows = attempts.flatMap(({ delivery, outcome }) =>
      delivery.seq !== undefined || outcome.kind === 'delivered'
        ? []
        : [
            {
              e: String(delivery.event.seq),
              p: delivery.endpointId,
              a: delivery.accountId,
              s: outcome.kind === 'retry' ? 'pending' : 'failed',
              n: String(outcome.kind === 'retry' ? outcome.retryAt : clock.now()),
              c: delivery.event.created_at,
              x: outcome.kind === 'retry' ? null : settledAt,
            },
          ],
    )
    if (rows.length === 0) return
    await sql`insert into webhook_deliveries (event_seq, endpoint_id, account_id, status, attempts, next_attempt_at,
created_at, settled_at) select ${field('e', 'bigint')}, ${field('p', 'text')}, ${field('a', 'text')},
${field('s', 'text')}, 1, ${field('n', 'bigint')}, ${field('c', 'text')}, ${field('x', 'text')}
from ${elements}(${json(rows)})`.execute(executor)
  }

  // The queue's partial index (`status = 'pending'`) serves a query only when it names the same value as a
  // literal: SQLite does not match a bound parameter to a partial index's condition, and scanned the whole table
  // (every delivery of the retention period) at every claim.

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
     * Claims up to `limit` due deliveries (retries, tests, events sent again; first attempts come from the
     * endpoints' streams) for `leaseMs`: one statement, committed with the requests' writes on SQLite.
     */
    async claimDue({ limit, leaseMs }: { limit: number; leaseMs: number }): Promise<ClaimedDelivery[]> {
      const claimed = await engine.write((executor) => claimIn(executor, limit, leaseMs))
      if (claimed.length === 0) return []
      const events = await db
        .selectFrom('webhook_events')
        .select(['seq', 'id', 'type', 'data', 'created_at'])
        .where(sql<boolean>`seq in ${seqs(claimed.map((c) => BigInt(c.event_seq)))}`)
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
            event: {
              seq: BigInt(event.seq),
              id: event.id,
              type: event.type,
              data: event.data,
              created_at: event.created_at,
            },
          },
        ]
      })
    },

    /**
     * The attempts of a batch and their deliveries' new states, in one transaction (shared with the turn's writes),
     * with `also` (the streams of the batch moved on).
     */
    async recordAll(
      attempts: readonly AttemptRecord[],
      also?: (executor: Kysely<Database>) => Promise<void>,
    ): Promise<void> {
      if (attempts.length === 0 && also === undefined) return
      await engine.transaction(async (trx) => {
        if (attempts.length > 0) await record(attempts, trx)
        await also?.(trx)
      })
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
