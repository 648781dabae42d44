// The webhook_endpoints table: database access only (the rules are endpoints.service.ts's).
import type { Kysely, Selectable } from 'kysely'
import type { Database, WebhookEndpointsTable } from '../../db/schema.js'
import { decodeSubscription } from './event-types.js'
import type { DisabledReason, Endpoint } from './endpoint.js'

export type EndpointRow = Selectable<WebhookEndpointsTable>

export function toEndpoint(row: EndpointRow, now: number): Endpoint {
  const subscription = decodeSubscription(row.event_types)
  const until = row.previous_secret_until === null ? undefined : Number(row.previous_secret_until)
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    eventTypes: subscription === '*' ? ['*'] : [...subscription],
    enabled: Number(row.enabled) === 1,
    ...(row.disabled_reason === null ? {} : { disabledReason: row.disabled_reason as DisabledReason }),
    ...(until !== undefined && until > now ? { previousSecretExpiresAt: new Date(until).toISOString() } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

export function createEndpointsRepository(db: Kysely<Database>) {
  const ofAccount = (executor: Kysely<Database>, accountId: string) =>
    executor.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', accountId)
  return {
    list: (accountId: string, executor = db) =>
      ofAccount(executor, accountId).orderBy('created_at').orderBy('id').execute(),

    get: (accountId: string, id: string, executor = db) =>
      ofAccount(executor, accountId).where('id', '=', id).executeTakeFirst(),

    /** The endpoint by id alone: for the delivery worker, which works across accounts. */
    byId: (id: string, executor = db) =>
      executor.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst(),

    async count(accountId: string, executor: Kysely<Database>): Promise<number> {
      const row = await executor
        .selectFrom('webhook_endpoints')
        .select((eb) => eb.fn.countAll<string | number | bigint>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow()
      return Number(row.n)
    },

    insert: (row: EndpointRow, executor: Kysely<Database>) =>
      executor.insertInto('webhook_endpoints').values(row).execute(),

    update: (id: string, set: Partial<EndpointRow>, executor: Kysely<Database>) =>
      executor.updateTable('webhook_endpoints').set(set).where('id', '=', id).execute(),

    delete: (id: string, executor: Kysely<Database>) =>
      executor.deleteFrom('webhook_endpoints').where('id', '=', id).execute(),

    /** The start of the endpoint's run of failed attempts (null: its last attempt succeeded). */
    setFailingSince: (id: string, since: bigint | null, executor = db) =>
      executor.updateTable('webhook_endpoints').set({ failing_since: since }).where('id', '=', id).execute(),

    /** Disables an enabled endpoint (a 410, or failing too long); false when it was not enabled. */
    async disable(id: string, reason: DisabledReason, at: string, executor = db): Promise<boolean> {
      const result = await executor
        .updateTable('webhook_endpoints')
        .set({ enabled: 0, disabled_reason: reason, updated_at: at })
        .where('id', '=', id)
        .where('enabled', '=', 1)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) > 0
    },
  }
}

export type EndpointsRepository = ReturnType<typeof createEndpointsRepository>
