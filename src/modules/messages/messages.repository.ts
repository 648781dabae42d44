// Messages and their queue. A message is committed as `queued` before the 202 is sent; the worker claims
// due messages oldest first under a lease, so a message is handed to one worker at a time, and a worker
// that dies simply lets its lease run out.
import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import { dialectOf } from '../../db/database.js'
import { kyselyEngine, type Engine } from '../../db/engine.js'
import { prepared } from '../../db/prepared.js'
import type { Database, MessagesTable } from '../../db/schema.js'
import type { Message, MessageStatus } from './message.js'

export interface QueuedMessage {
  seq: bigint
  id: string
  accountId: string
  message: string
  createdAt: string
  /** Attempts made so far, this one included. */
  attempts: number
}

type Row = Pick<MessagesTable, 'id' | 'message' | 'status' | 'created_at'>
const toMessage = (row: Row): Message => ({
  id: row.id,
  message: row.message,
  status: row.status as MessageStatus,
  createdAt: row.created_at,
})

export function createMessagesRepository({
  db,
  clock,
  engine = kyselyEngine(db),
}: {
  db: Kysely<Database>
  clock: Clock
  engine?: Engine
}) {
  // On PostgreSQL, workers of several instances claim at once: rows another worker is claiming are skipped
  // (FOR UPDATE SKIP LOCKED), so no message is handed to two workers. SQLite has one writer at a time.
  const skipLocked = dialectOf(db) === 'postgres'
  const insertQuery = prepared({ db, engine }, (qb, _: null, p) =>
    qb
      .insertInto('messages')
      .values({
        id: p('id'),
        account_id: p('account_id'),
        message: p('message'),
        status: p('status'),
        next_attempt_at: p('next_attempt_at'),
        created_at: p('created_at'),
      })
      .returning('seq'),
  )
  return {
    async create(
      { accountId, message }: { accountId: string; message: string },
      executor: Kysely<Database> = db,
    ): Promise<Message> {
      const now = clock.now()
      const row = {
        id: `msg_${randomBytes(12).toString('hex')}`,
        account_id: accountId,
        message,
        status: 'queued' as const,
        next_attempt_at: BigInt(now),
        created_at: new Date(now).toISOString(),
      }
      await insertQuery.rows(null, row, executor)
      return toMessage(row)
    },

    async get({ accountId, id }: { accountId: string; id: string }): Promise<Message | undefined> {
      const row = await db
        .selectFrom('messages')
        .select(['id', 'message', 'status', 'created_at'])
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .executeTakeFirst()
      return row && toMessage(row)
    },

    /** Claims up to `limit` due messages, oldest first, for `leaseMs`; counts the attempt. */
    async claimDue({ limit, leaseMs }: { limit: number; leaseMs: number }): Promise<QueuedMessage[]> {
      const now = BigInt(clock.now())
      const due = db
        .selectFrom('messages')
        .select('seq')
        .where('status', '=', 'queued')
        .where('next_attempt_at', '<=', now)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
        .orderBy('seq')
        .limit(limit)
        .$if(skipLocked, (qb) => qb.forUpdate().skipLocked())
      // The worker's writes are committed like the requests' (grouped with them on SQLite): a separate disk
      // flush for each would cost the event loop more than the deliveries.
      const rows = await engine.write((executor) =>
        executor
          .updateTable('messages')
          .set((eb) => ({ locked_until: now + BigInt(leaseMs), attempts: eb('attempts', '+', 1n) }))
          .where('seq', 'in', due)
          .returning(['seq', 'id', 'account_id', 'message', 'created_at', 'attempts'])
          .execute(),
      )
      return rows
        .map((r) => ({
          seq: BigInt(r.seq),
          id: r.id,
          accountId: r.account_id,
          message: r.message,
          createdAt: r.created_at,
          attempts: Number(r.attempts),
        }))
        .sort((a, b) => (a.seq < b.seq ? -1 : 1))
    },

    async markDelivered(seq: bigint): Promise<void> {
      const delivered = {
        status: 'delivered' as const,
        delivered_at: new Date(clock.now()).toISOString(),
        locked_until: null,
        last_error: null,
      }
      await engine.write((executor) => executor.updateTable('messages').set(delivered).where('seq', '=', seq).execute())
    },

    /** Schedules another attempt at `retryAt`, or marks the message failed when `retryAt` is undefined. */
    async markAttemptFailed(seq: bigint, error: string, retryAt: number | undefined): Promise<void> {
      const set =
        retryAt === undefined
          ? { status: 'failed' as const, locked_until: null, last_error: error }
          : { next_attempt_at: BigInt(retryAt), locked_until: null, last_error: error }
      await engine.write((executor) => executor.updateTable('messages').set(set).where('seq', '=', seq).execute())
    },
  }
}

export type MessagesRepository = ReturnType<typeof createMessagesRepository>
