// The events recorded for an account (webhook_events): listed newest first with the API's keyset paging, read one
// by one, recorded by the service itself for what no row change describes (a test event), and deleted after
// WEBHOOK_RETENTION_DAYS with their deliveries and attempts.
import type { Kysely, Selectable } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import type { Database, WebhookEventsTable } from '../../db/schema.js'
import { newEventId } from './event-id.js'
import type { EventType } from './event-types.js'

type EventRow = Pick<Selectable<WebhookEventsTable>, 'id' | 'type' | 'data' | 'created_at'>

/** An event as JSON text, as the API answers it and a delivery carries it: `data` is kept as JSON text already. */
export const eventJson = (row: EventRow): string =>
  `{"id":${JSON.stringify(row.id)},"type":${JSON.stringify(row.type)},"timestamp":${JSON.stringify(row.created_at)},\
"data":${row.data}}`

export function createEventsRepository({ db, clock }: { db: Kysely<Database>; clock: Clock }) {
  const columns = ['seq', 'id', 'type', 'data', 'created_at'] as const
  return {
    /** Up to `limit` events older than `beforeSeq` (newest first) as the JSON text of a page. */
    async page(input: { accountId: string; type?: string; afterId?: bigint; limit: number }) {
      let query = db
        .selectFrom('webhook_events')
        .select(columns)
        .where('account_id', '=', input.accountId)
        .orderBy('seq', 'desc')
        .limit(input.limit + 1)
      if (input.type !== undefined) query = query.where('type', '=', input.type)
      if (input.afterId !== undefined) query = query.where('seq', '<', input.afterId)
      const rows = await query.execute()
      const page = rows.slice(0, input.limit)
      const last = page.at(-1)
      return {
        json: `[${page.map(eventJson).join(',')}]`,
        lastId: last === undefined ? undefined : BigInt(last.seq),
        hasMore: rows.length > input.limit,
      }
    },

    async get(accountId: string, id: string): Promise<string | undefined> {
      const row = await db
        .selectFrom('webhook_events')
        .select(columns)
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .executeTakeFirst()
      return row && eventJson(row)
    },

    /**
     * Records an event for one endpoint only, delivered like any other (a test event): with its one delivery due
     * now, and read by no stream. In `executor`'s transaction.
     */
    async recordFor(
      input: { accountId: string; endpointId: string; type: EventType; data: string },
      executor: Kysely<Database>,
    ): Promise<string> {
      const now = clock.now()
      const at = new Date(now).toISOString()
      const id = newEventId(now)
      const event = { id, account_id: input.accountId, type: input.type, data: input.data, created_at: at }
      const { seq } = await executor
        .insertInto('webhook_events')
        .values(event)
        .returning('seq')
        .executeTakeFirstOrThrow()
      await executor
        .insertInto('webhook_deliveries')
        .values({
          event_seq: BigInt(seq),
          endpoint_id: input.endpointId,
          account_id: input.accountId,
          status: 'pending',
          next_attempt_at: BigInt(now),
          created_at: at,
        })
        .execute()
      return eventJson(event)
    },

    /** Deletes events, their deliveries, and attempts older than `days`; returns how many events. */
    async purge(days: number): Promise<number> {
      const cutoff = new Date(clock.now() - days * 86_400_000).toISOString()
      return db.transaction().execute(async (trx) => {
        const old = trx.selectFrom('webhook_events').select('seq').where('created_at', '<', cutoff)
        // The attempts older than that. The log is in time order: everything before its first young attempt goes,
        // found by reading only what goes (the log has no index by delivery or by time, and needs none).
        const firstYoung = trx
          .selectFrom('webhook_attempts')
          .select('seq')
          .where('attempted_at', '>=', cutoff)
          .orderBy('seq')
          .limit(1)
        const end = trx.selectFrom('webhook_attempts').select((eb) => eb(eb.fn.max('seq'), '+', 1n).as('end'))
        await trx
          .deleteFrom('webhook_attempts')
          .where('seq', '<', (eb) => eb.fn.coalesce(firstYoung, end))
          .execute()
        await trx.deleteFrom('webhook_deliveries').where('event_seq', 'in', old).execute()
        const result = await trx.deleteFrom('webhook_events').where('created_at', '<', cutoff).executeTakeFirst()
        return Number(result.numDeletedRows)
      })
    },
  }
}

export type EventsRepository = ReturnType<typeof createEventsRepository>
