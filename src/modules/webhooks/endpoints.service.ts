// The endpoints an account registers, used by the API and the portal: at most MAX_ENDPOINTS each, a URL that is a
// deliverable target (target-check.ts), a secret shown once (when made, and when rotated) and kept sealed. Every
// change writes its audit entry in its own transaction.
import { randomBytes } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import type { SecretBox } from '../../kernel/secret-box.js'
import { dialectOf } from '../../db/database.js'
import type { Database } from '../../db/schema.js'
import type { AuditActor } from '../audit/audit-event.js'
import { writeAudit } from '../audit/audit.repository.js'
import { checkDescription, checkEventTypes, checkGraceSeconds } from './endpoint-input.js'
import { createEndpointsRepository, toEndpoint, type EndpointRow } from './endpoints.repository.js'
import type { Endpoint } from './endpoint.js'
import { encodeSubscription } from './event-types.js'
import { newEndpointSecret } from './signature.js'
import { EndpointDisabled, EndpointLimitReached, EndpointRefused, WebhookNotFound } from './webhooks.errors.js'
import { createEventsRepository } from './events.repository.js'
import { streamFromNow } from './event-streams.repository.js'

export const MAX_ENDPOINTS = 10

interface EndpointFields {
  url: string
  description?: string
  eventTypes: readonly string[]
  enabled?: boolean
}

interface Options {
  db: Kysely<Database>
  clock: Clock
  secrets: SecretBox
  /** Why `url` is no deliverable target (scheme, credentials, a refused address), or undefined. */
  checkTarget: (url: string) => Promise<string | undefined>
}

export function createWebhookEndpoints({ db, clock, secrets, checkTarget }: Options) {
  const repo = createEndpointsRepository(db)
  const events = createEventsRepository({ db, clock })
  const onPostgres = dialectOf(db) === 'postgres'
  const iso = () => new Date(clock.now()).toISOString()

  async function url(raw: string): Promise<string> {
    const problem = await checkTarget(raw)
    if (problem !== undefined) throw new EndpointRefused('url', problem)
    return raw
  }

  async function existing(accountId: string, id: string, trx: Kysely<Database>): Promise<EndpointRow> {
    const row = await repo.get(accountId, id, trx)
    if (row === undefined) throw new WebhookNotFound('endpoint', id)
    return row
  }

  const audit = (trx: Kysely<Database>, actor: AuditActor, row: EndpointRow, action: AuditEntryAction, more = {}) =>
    writeAudit(trx, clock.now(), actor, {
      action,
      accountId: row.account_id,
      target: { kind: 'webhook_endpoint', id: row.id },
      changes: { url: row.url, ...more },
    })

  return {
    list: async (accountId: string) => (await repo.list(accountId)).map((row) => toEndpoint(row, clock.now())),

    async get(accountId: string, id: string): Promise<Endpoint> {
      return toEndpoint(await existing(accountId, id, db), clock.now())
    },

    async create(accountId: string, fields: EndpointFields, actor: AuditActor) {
      const row: EndpointRow = {
        id: `ep_${randomBytes(12).toString('hex')}`,
        account_id: accountId,
        url: await url(fields.url),
        description: checkDescription(fields.description),
        event_types: encodeSubscription(checkEventTypes(fields.eventTypes)),
        enabled: fields.enabled === false ? 0 : 1,
        disabled_reason: fields.enabled === false ? 'integrator' : null,
        secret: '',
        previous_secret: null,
        previous_secret_until: null,
        failing_since: null,
        created_at: iso(),
        updated_at: iso(),
        stream_seq: 0n,
        stream_tx: 0n,
        stream_locked_until: null,
      }
      const secret = newEndpointSecret()
      row.secret = secrets.seal(secret, row.id)
      await db.transaction().execute(async (trx) => {
        // Two creations at once must not both see nine: PostgreSQL locks the account row (SQLite has one writer).
        if (onPostgres) await sql`select 1 from accounts where id = ${accountId} for update`.execute(trx)
        if ((await repo.count(accountId, trx)) >= MAX_ENDPOINTS) throw new EndpointLimitReached(MAX_ENDPOINTS)
        await repo.insert(row, trx)
        await streamFromNow(trx, row.id)
        await audit(trx, actor, row, 'webhook_endpoint.created', { eventTypes: fields.eventTypes })
      })
      return { endpoint: toEndpoint(row, clock.now()), secret }
    },

    async update(accountId: string, id: string, patch: Partial<EndpointFields>, actor: AuditActor) {
      const set: Partial<EndpointRow> = { updated_at: iso() }
      if (patch.url !== undefined) set.url = await url(patch.url)
      if (patch.description !== undefined) set.description = checkDescription(patch.description)
      if (patch.eventTypes !== undefined) set.event_types = encodeSubscription(checkEventTypes(patch.eventTypes))
      if (patch.enabled !== undefined) {
        set.enabled = patch.enabled ? 1 : 0
        set.disabled_reason = patch.enabled ? null : 'integrator'
        // Enabled again: the failures before no longer count toward disabling it.
        if (patch.enabled) set.failing_since = null
      }
      return db.transaction().execute(async (trx) => {
        const before = await existing(accountId, id, trx)
        await repo.update(id, set, trx)
        // Enabled again: it hears of what follows, not of what happened while it was off (as when it was made).
        if (patch.enabled && Number(before.enabled) !== 1) await streamFromNow(trx, id)
        const after = { ...before, ...set }
        const changed = Object.keys(patch).filter((k) => (patch as Record<string, unknown>)[k] !== undefined)
        await audit(trx, actor, after, 'webhook_endpoint.updated', { fields: changed })
        return toEndpoint(after, clock.now())
      })
    },

    async delete(accountId: string, id: string, actor: AuditActor): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const row = await existing(accountId, id, trx)
        await repo.delete(id, trx)
        await audit(trx, actor, row, 'webhook_endpoint.deleted')
      })
    },

    /** A new secret; the one before keeps signing for `graceSeconds` (default a day, at most 7 days). */
    async rotateSecret(accountId: string, id: string, input: { graceSeconds?: number }, actor: AuditActor) {
      const grace = checkGraceSeconds(input.graceSeconds)
      const secret = newEndpointSecret()
      const endpoint = await db.transaction().execute(async (trx) => {
        const row = await existing(accountId, id, trx)
        const until = clock.now() + grace * 1000
        const set = {
          secret: secrets.seal(secret, id),
          previous_secret: grace === 0 ? null : row.secret,
          previous_secret_until: grace === 0 ? null : BigInt(until),
          updated_at: iso(),
        }
        await repo.update(id, set, trx)
        const previousUntil = grace === 0 ? null : new Date(until).toISOString()
        await audit(trx, actor, row, 'webhook_endpoint.secret_rotated', { previousSecretExpiresAt: previousUntil })
        return toEndpoint({ ...row, ...set }, clock.now())
      })
      return { endpoint, secret }
    },

    /** Disables an enabled endpoint for what its deliveries showed (the worker); false when it was not enabled. */
    async disableForDeliveries(id: string, reason: 'gone' | 'failing'): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const row = await repo.byId(id, trx)
        if (row === undefined || !(await repo.disable(id, reason, iso(), trx))) return false
        await audit(trx, { kind: 'system' }, row, 'webhook_endpoint.disabled', { reason })
        return true
      })
    },

    /** Disables an enabled endpoint of the account for an operator (reason `operator`); false if it was not enabled. */
    async disableByOperator(accountId: string, id: string, actor: AuditActor): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const row = await existing(accountId, id, trx)
        if (!(await repo.disable(id, 'operator', iso(), trx))) return false
        await audit(trx, actor, row, 'webhook_endpoint.disabled', { reason: 'operator' })
        return true
      })
    },

    /** Records a `webhook.test` event for this endpoint alone, delivered like any other; returns its JSON. */
    async sendTest(accountId: string, id: string): Promise<string> {
      return db.transaction().execute(async (trx) => {
        const row = await existing(accountId, id, trx)
        if (Number(row.enabled) !== 1) throw new EndpointDisabled(id)
        const data = `{"endpointId":${JSON.stringify(id)},"message":"A test event from Petstore: nothing changed."}`
        return events.recordFor({ accountId, endpointId: id, type: 'webhook.test', data }, trx)
      })
    },

    /** The secrets a delivery to this endpoint is signed with now: the current one, and the one before in its grace. */
    signingSecrets(row: EndpointRow): string[] {
      const current = secrets.open(row.secret, row.id)
      const until = row.previous_secret_until === null ? 0 : Number(row.previous_secret_until)
      if (row.previous_secret === null || until <= clock.now()) return [current]
      return [current, secrets.open(row.previous_secret, row.id)]
    },
  }
}

type AuditEntryAction =
  | 'webhook_endpoint.created'
  | 'webhook_endpoint.updated'
  | 'webhook_endpoint.deleted'
  | 'webhook_endpoint.secret_rotated'
  | 'webhook_endpoint.disabled'

export type WebhookEndpoints = ReturnType<typeof createWebhookEndpoints>
