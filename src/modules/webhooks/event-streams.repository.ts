// Each endpoint's stream (0021_event-streams): the account's events after the endpoint's position, read by one
// instance at a time under a lease, for their first attempts. No row is written per event to deliver it: the
// position moves past a batch once its attempts are recorded (deliveries.repository.ts), in the same transaction.
// A worker that dies mid-batch leaves the lease to run out; the batch is read again, by any instance (at least once).
import { sql, type Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import { dialectOf } from '../../db/database.js'
import type { Database } from '../../db/schema.js'
import { kyselyEngine, type Engine } from '../../db/engine.js'
import type { ClaimedEvent } from './claimed-delivery.js'
import { isSubscribed } from './event-types.js'

// PostgreSQL: the oldest transaction still running; a stream reads only events of older ones (0021_event-streams).
const xmin = sql`pg_snapshot_xmin(pg_current_snapshot())::text::bigint`

/** A stream claimed for a batch: where it was, and where the batch takes it. */
export interface ClaimedStream {
  endpointId: string
  accountId: string
  from: { tx: bigint; seq: bigint }
  to: { tx: bigint; seq: bigint }
  /** The batch's events the endpoint is subscribed to (a test event goes by its own delivery, never a stream). */
  events: ClaimedEvent[]
  /** The batch was full: more may follow at once. */
  full: boolean
}

export function createEventStreamsRepository({
  db,
  clock,
  engine = kyselyEngine(db),
}: {
  db: Kysely<Database>
  clock: Clock
  engine?: Engine
}) {
  const onPostgres = dialectOf(db) === 'postgres'
  const after = (tx: unknown, seq: unknown) =>
    onPostgres ? sql`(ev.tx, ev.seq) > (${tx}, ${seq}) and ev.tx < ${xmin}` : sql`ev.seq > ${seq}`

  /** Leases up to `limit` enabled endpoints with events past their position, for `leaseMs`. */
  function claim(executor: Kysely<Database>, limit: number, leaseMs: number) {
    const now = clock.now()
    const position = after(sql.ref('ep.stream_tx'), sql.ref('ep.stream_seq'))
    const skipLocked = onPostgres ? sql` for update skip locked` : sql``
    return sql<{ id: string; account_id: string; event_types: string; stream_seq: bigint; stream_tx: bigint }>`
update webhook_endpoints set stream_locked_until = ${now + leaseMs} where id in (select ep.id from webhook_endpoints ep
where ep.enabled = 1 and (ep.stream_locked_until is null or ep.stream_locked_until <= ${now}) and exists (select 1
from webhook_events ev where ev.account_id = ep.account_id and ${position}) limit ${limit}${skipLocked})
returning id, account_id, event_types, stream_seq, stream_tx`.execute(executor)
  }

  return {
    /**
     * Claims up to `streams` streams with events waiting and reads up to `perStream` events of each, in the order
     * a position moves through them.
     */
    async claim({ streams, perStream, leaseMs }: { streams: number; perStream: number; leaseMs: number }) {
      const claimed = (await engine.write((executor) => claim(executor, streams, leaseMs))).rows
      return Promise.all(
        claimed.map(async (stream): Promise<ClaimedStream> => {
          const from = { tx: BigInt(stream.stream_tx), seq: BigInt(stream.stream_seq) }
          const rows = (
            await sql<ClaimedEvent & { tx: bigint | null }>`select seq, tx, id, type, data, created_at
from webhook_events ev where ev.account_id = ${stream.account_id} and ${after(from.tx, from.seq)}
order by ${onPostgres ? sql`ev.tx, ` : sql``}ev.seq limit ${perStream}`.execute(db)
          ).rows
          const last = rows.at(-1)
          const to = last ? { tx: BigInt(last.tx ?? 0), seq: BigInt(last.seq) } : from
          const events = rows
            .filter((e) => e.type !== 'webhook.test' && isSubscribed(stream.event_types, e.type))
            .map(({ seq, id, type, data, created_at }) => ({ seq: BigInt(seq), id, type, data, created_at }))
          return {
            endpointId: stream.id,
            accountId: stream.account_id,
            from,
            to,
            events,
            full: rows.length >= perStream,
          }
        }),
      )
    },

    /**
     * Waits until the streams can read every event committed before the call (on PostgreSQL, until every
     * transaction that had begun writing by then has ended: `pg_snapshot_xmin` is the whole server's, so a writer
     * of another database or schema holds it back too), for at most `maxMs`. A step run on demand (the tests',
     * `runOnce`) then sees what its caller just committed; the worker's own loop does not wait, it comes back.
     */
    async caughtUp(maxMs = 5_000): Promise<void> {
      if (!onPostgres) return
      const { rows } = await sql<{
        next: string
      }>`select pg_snapshot_xmax(pg_current_snapshot())::text as next`.execute(db)
      const next = rows[0]!.next
      const until = Date.now() + maxMs
      for (;;) {
        const { rows: now } = await sql<{ past: boolean }>`select ${xmin} >= ${next}::bigint as past`.execute(db)
        if (now[0]!.past || Date.now() >= until) return
        await new Promise((resolve) => setTimeout(resolve, 2))
      }
    },

    /** Moves each stream past its batch and lets it go (in `executor`'s transaction, with the batch's attempts). */
    async advance(streams: readonly ClaimedStream[], executor: Kysely<Database>): Promise<void> {
      for (const { endpointId, from, to } of streams)
        await executor
          .updateTable('webhook_endpoints')
          .set({ stream_seq: to.seq, stream_tx: to.tx, stream_locked_until: null })
          .where('id', '=', endpointId)
          // Not if another instance took the stream over meanwhile (this lease ran out) and moved it on.
          .where('stream_seq', '=', from.seq)
          .where('stream_tx', '=', from.tx)
          .execute()
    },
  }
}

/** Sets the endpoint's stream at the account's newest event: made, or enabled again, it hears of what follows. */
export async function streamFromNow(executor: Kysely<Database>, endpointId: string): Promise<void> {
  const tx = dialectOf(executor) === 'postgres' ? sql`${xmin} - 1` : sql`0`
  await sql`update webhook_endpoints set stream_tx = ${tx}, stream_locked_until = null, stream_seq = coalesce((select
max(ev.seq) from webhook_events ev where ev.account_id = webhook_endpoints.account_id), 0)
where id = ${endpointId}`.execute(executor)
}

/**
 * Events waiting in enabled endpoints' streams (the metrics, an endpoint's health), per endpoint: how many, and
 * the oldest's time. Of one account, or of all.
 */
export async function streamBacklog(executor: Kysely<Database>, accountId?: string) {
  const onPostgres = dialectOf(executor) === 'postgres'
  const after = onPostgres ? sql`(ev.tx, ev.seq) > (ep.stream_tx, ep.stream_seq)` : sql`ev.seq > ep.stream_seq`
  const subscribed = sql`(ep.event_types = '*' or ${sql.raw(onPostgres ? 'strpos' : 'instr')}(ep.event_types,
' ' || ev.type || ' ') > 0)`
  const ofAccount = accountId === undefined ? sql`` : sql` and ep.account_id = ${accountId}`
  const { rows } = await sql<{ endpoint_id: string; n: number | string | bigint; oldest: string | null }>`select
ep.id as endpoint_id, count(*) as n, min(ev.created_at) as oldest from webhook_endpoints ep join webhook_events ev on
ev.account_id = ep.account_id and ${after} where ep.enabled = 1 and ev.type <> 'webhook.test' and ${subscribed}
${ofAccount} group by ep.id`.execute(executor)
  return rows.map((r) => ({ endpointId: r.endpoint_id, waiting: Number(r.n), oldest: r.oldest }))
}

export type EventStreamsRepository = ReturnType<typeof createEventStreamsRepository>
