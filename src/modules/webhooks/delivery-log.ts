// What an integrator sees of an endpoint's deliveries and can do with them: every attempt (newest first, kept
// WEBHOOK_RETENTION_DAYS), one event sent again, or every event that failed since a time sent again ("recover").
// Sending again makes the delivery pending and due now, with a fresh count of attempts: the worker does the rest.
import type { Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import type { Database } from '../../db/schema.js'
import { createEndpointsRepository } from './endpoints.repository.js'
import { endpointHealth } from './endpoint-health.js'
import { EndpointDisabled, WebhookNotFound } from './webhooks.errors.js'

export interface Attempt {
  /** The attempt's position in the log (a cursor of the log's pages). */
  seq: bigint
  eventId: string
  eventType: string
  attemptedAt: string
  statusCode?: number
  errorClass?: string
  error?: string
  durationMs: number
  responseExcerpt?: string
}

export function createDeliveryLog({ db, clock }: { db: Kysely<Database>; clock: Clock }) {
  const endpoints = createEndpointsRepository(db)

  async function enabledEndpoint(accountId: string, endpointId: string, executor: Kysely<Database>) {
    const endpoint = await endpoints.get(accountId, endpointId, executor)
    if (endpoint === undefined) throw new WebhookNotFound('endpoint', endpointId)
    if (Number(endpoint.enabled) !== 1) throw new EndpointDisabled(endpointId)
  }

  const due = () => ({
    status: 'pending' as const,
    attempts: 0,
    next_attempt_at: BigInt(clock.now()),
    locked_until: null,
  })

  return {
    /** How each endpoint of the account is doing (the operator console's account page): endpoint id -> health. */
    health: (accountId: string) => endpointHealth({ db, clock }, accountId),

    /** Up to `limit` attempts of the endpoint older than `beforeSeq`, newest first, and whether more follow. */
    async attempts(input: { accountId: string; endpointId: string; beforeSeq?: bigint; limit: number }) {
      if ((await endpoints.get(input.accountId, input.endpointId)) === undefined)
        throw new WebhookNotFound('endpoint', input.endpointId)
      let query = db
        .selectFrom('webhook_attempts')
        .selectAll()
        .where('endpoint_id', '=', input.endpointId)
        .orderBy('seq', 'desc')
        .limit(input.limit + 1)
      if (input.beforeSeq !== undefined) query = query.where('seq', '<', input.beforeSeq)
      const rows = await query.execute()
      const page: Attempt[] = rows.slice(0, input.limit).map((r) => ({
        seq: BigInt(r.seq),
        eventId: r.event_id,
        eventType: r.event_type,
        attemptedAt: r.attempted_at,
        ...(r.status_code === null ? {} : { statusCode: Number(r.status_code) }),
        ...(r.error_class === null ? {} : { errorClass: r.error_class }),
        ...(r.error === null ? {} : { error: r.error }),
        durationMs: Number(r.duration_ms),
        ...(r.response_excerpt === null ? {} : { responseExcerpt: r.response_excerpt }),
      }))
      return { attempts: page, hasMore: rows.length > input.limit }
    },

    /** Sends one event of the account to the endpoint again (whether or not it went out before). */
    async resend(input: { accountId: string; endpointId: string; eventId: string }): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await enabledEndpoint(input.accountId, input.endpointId, trx)
        const event = await trx
          .selectFrom('webhook_events')
          .select('seq')
          .where('account_id', '=', input.accountId)
          .where('id', '=', input.eventId)
          .executeTakeFirst()
        if (event === undefined) throw new WebhookNotFound('event', input.eventId)
        const updated = await trx
          .updateTable('webhook_deliveries')
          .set({ ...due(), settled_at: null })
          .where('event_seq', '=', BigInt(event.seq))
          .where('endpoint_id', '=', input.endpointId)
          .executeTakeFirst()
        if (Number(updated.numUpdatedRows) > 0) return
        await trx
          .insertInto('webhook_deliveries')
          .values({
            event_seq: BigInt(event.seq),
            endpoint_id: input.endpointId,
            account_id: input.accountId,
            created_at: new Date(clock.now()).toISOString(),
            ...due(),
          })
          .execute()
      })
    },

    /** Sends again every event whose delivery to the endpoint failed, of those recorded since `since`; how many. */
    async recover(input: { accountId: string; endpointId: string; since: Date }): Promise<number> {
      return db.transaction().execute(async (trx) => {
        await enabledEndpoint(input.accountId, input.endpointId, trx)
        const since = trx
          .selectFrom('webhook_events')
          .select('seq')
          .where('account_id', '=', input.accountId)
          .where('created_at', '>=', input.since.toISOString())
        const result = await trx
          .updateTable('webhook_deliveries')
          .set({ ...due(), settled_at: null })
          .where('endpoint_id', '=', input.endpointId)
          .where('status', '=', 'failed')
          .where('event_seq', 'in', since)
          .executeTakeFirst()
        return Number(result.numUpdatedRows)
      })
    },
  }
}

export type DeliveryLog = ReturnType<typeof createDeliveryLog>
