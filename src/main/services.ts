// Every service of the process, built once from its dependencies and shared by both listeners: the same
// accounts, the same rate-limit store (one quota over both interfaces), the same idempotency records.
import { webhookBacklog } from '../modules/webhooks/backlog.js'
import type { Kysely } from 'kysely'
import type pg from 'pg'
import { createAccountsRepository } from '../modules/accounts/accounts.repository.js'
import { createAuditRepository } from '../modules/audit/audit.repository.js'
import { listenForKeyChanges } from '../modules/accounts/key-changes.js'
import { createKeyCache } from '../modules/accounts/key-cache.js'
import { createVerification } from '../modules/integrators/verification.js'
import {
  emailsOf,
  endAccountSessions,
  endSessionsIn,
  removeOwnersOf,
  usersOfAccount,
} from '../modules/integrators/account-owners.js'
import { systemClock, type Clock } from '../kernel/clock.js'
import type { Config } from '../kernel/config.js'
import { kyselyEngine, type Engine } from '../db/engine.js'
import type { Database } from '../db/schema.js'
import { loadOrCreateSecret } from '../db/settings.js'
import { createCursorCodec } from '../api/contract/cursor.js'
import { createSendBatcher } from '../api/platform/send-batching.js'
import { createIdempotencyRepository } from '../modules/idempotency/idempotency.repository.js'
import { ADMIN_TOKEN_SETTING } from '../modules/limits/admin-channel.js'
import { createMemoryStore } from '../modules/limits/memory.store.js'
import type { RateLimitStore } from '../modules/limits/rate-limit.store.js'
import { createRateLimiter } from '../modules/limits/rate-limiter.js'
import { createMessagesRepository } from '../modules/messages/messages.repository.js'
import { databaseState, redisState } from '../ops/dependency-checks.js'
import { PLANS } from '../modules/accounts/plans.js'
import { createMetrics } from '../ops/metrics.js'
import { createDependencyOutages } from '../ops/outage-log.js'
import { createPetsRepository } from '../modules/pets/pets.repository.js'
import { createPlanRequestThrottle } from '../modules/plan-requests/plan-request-throttle.js'
import { createPlanRequests, type PlanRequests } from '../modules/plan-requests/plan-requests.service.js'
import { createOrdersRepository } from '../modules/orders/orders.repository.js'
import { createOperatorsRepository } from '../modules/operators/operators.repository.js'
import { createMailer, type Mailer } from '../mail/mail.js'
import type { PipelinedReads } from '../db/pipelined-reads.js'
import { createPortalRepository } from '../modules/integrators/integrators.repository.js'
import { createInvitations } from '../modules/integrators/invitations.js'
import { createSettingsRepository } from '../modules/integrators/settings.repository.js'
import { createUsage } from '../modules/usage/usage.service.js'
import { webhookServices } from './webhook-services.js'
import { createKnownDevices } from '../modules/integrators/known-devices.js'
import { createTwoFactor } from '../modules/two-factor/two-factor.service.js'
import { createTeams, type Teams } from '../modules/teams/teams.service.js'
import { createSecretBox, DEVELOPMENT_SECRETS_KEY, parseSecretsKeys, type SecretBox } from '../kernel/secret-box.js'
import { createEventsRepository } from '../modules/webhooks/events.repository.js'
import { createLimitEvents } from '../modules/webhooks/limit-events.js'

export interface ServiceDependencies {
  config: Config
  db: Kysely<Database>
  /** The PostgreSQL pool behind `db`, if any (its use is exported as metrics). */
  pool?: pg.Pool
  /** PostgreSQL's pipelined read connections, if any (how many are open is exported as a metric). */
  reads?: PipelinedReads
  /** How hot queries and writes run (the database handle's); plain Kysely when absent. */
  engine?: Engine
  clock?: Clock
  /** Where rate-limit counters and bans live; in this process's memory by default. */
  rateLimitStore?: RateLimitStore
  /** Where services report trouble of their own (the key-change listener, closing); silent when absent. */
  log?: {
    warn: (obj: object, msg: string) => void
    info: (obj: object, msg: string) => void
    error?: (obj: object, msg: string) => void
  }
}

export async function buildServices({
  config,
  db,
  pool,
  reads,
  engine = kyselyEngine(db),
  clock = systemClock,
  rateLimitStore: givenStore,
  log,
}: ServiceDependencies) {
  const rateLimitStore = givenStore ?? createMemoryStore()
  const metrics = createMetrics({
    pool,
    reads,
    db,
    clock,
    plans: PLANS,
    webhookBacklog: (now) => webhookBacklog(db, now),
    redis: config.redisUrl ? () => redisState(config.redisUrl, rateLimitStore) : undefined,
  })
  const sendBatcher = createSendBatcher()
  engine.onWritesSettled?.(sendBatcher.flushWhenSettled)
  // PostgreSQL: key look-ups are a round trip each, so servers remember them (see key-cache.ts). SQLite's
  // look-up is a few microseconds in this process, and the CLI changes keys from another one: no cache there.
  const keyCache =
    pool && config.keyCacheTtlMs > 0 ? createKeyCache({ ttlMs: config.keyCacheTtlMs }, metrics.keyCache) : undefined
  const keyChanges = pool && keyCache ? listenForKeyChanges({ pool, cache: keyCache, log }) : undefined
  // Teams (issue 38): an account's members and invitations. An account's deletion takes its memberships, its
  // invitations, the sessions working in it and the portal user made with it, unless that user is still a member
  // of another account (their log-in stays for it).
  const teams = createTeams({
    db,
    clock,
    emailsOf: (ids) => emailsOf(db, ids),
    endSessionsIn,
  })
  const removeWithAccount = async (trx: Kysely<Database>, accountId: string) => {
    const stay = await teams.removeWithAccount(trx, accountId, await usersOfAccount(trx, accountId))
    await endAccountSessions(trx, accountId)
    await removeOwnersOf(trx, accountId, stay)
  }
  const accounts = createAccountsRepository({ db, clock, engine, keyCache, removeWithAccount })
  // Verification links: mailed by the portal and by the console (an operator's `Resend verification`).
  const verification = createVerification({ db, clock, publicUrl: config.publicUrl })
  const outages = createDependencyOutages({ log, clock })
  // Bans and quota thresholds as webhook events (issue 36), where webhooks are on.
  const events = createEventsRepository({ db, clock })
  const limitEvents = config.webhooks ? createLimitEvents({ engine, clock, log }) : undefined
  const usage = createUsage({ db, engine, accounts, store: rateLimitStore })
  // Mail goes out for the portal and the console (a private console without the portal may have no MAIL_URL).
  const mailer =
    config.mailUrl && (config.portal || config.console)
      ? createMailer({ url: config.mailUrl, from: config.mailFrom, outage: outages.mail })
      : undefined
  // Requests for a higher plan: the portal asks, the console decides (a private console decides those waiting).
  const planRequests =
    config.portal || config.console
      ? createPlanRequests({ db, clock, engine, accounts, mailer, publicUrl: config.publicUrl, log })
      : undefined
  // Integrators' second factors: the portal uses them, the console shows and resets them.
  const twoFactor = createTwoFactor({ db, clock, secrets: factorSecrets(config), publicUrl: config.publicUrl })
  const portal =
    config.portal && mailer && planRequests
      ? await portalServices({ config, db, clock, accounts, verification, mailer, planRequests, rateLimitStore, teams })
      : undefined
  return {
    metrics,
    /** What /healthz, /readyz and /metrics need (api/ops/ops.routes.ts). */
    ops: {
      metrics,
      config,
      readiness: async () => {
        const [database, redis] = await Promise.all([databaseState(db), redisState(config.redisUrl, rateLimitStore)])
        return { database, redis }
      },
    },
    /**
     * Outages of the database and the mail server, logged once per outage for the whole process (ops/outage-log.ts).
     */
    outages,
    config,
    db,
    clock,
    rateLimitStore,
    sendBatcher,
    accounts,
    verification,
    twoFactor,
    teams,
    /** The audit log: its reader, `record` for events that change no row, and the retention job's purge. */
    audit: createAuditRepository({ db, clock }),
    keyCache,
    usage,
    /**
     * Called once by whoever built the services, after the last request: writes the buffered usage counts (a
     * failure is logged: the counts are lost), stops listening for key changes, and closes the rate-limit store if
     * it was made here (a store passed in is closed by whoever made it). The database handle is the caller's.
     */
    async close(): Promise<void> {
      await usage.flush().catch((err: unknown) => log?.error?.({ err }, 'writing usage counts at shutdown failed'))
      await keyChanges?.close()
      if (givenStore === undefined) await rateLimitStore.close()
    },
    pets: createPetsRepository({ db, clock, engine }),
    orders: createOrdersRepository({ db, clock, engine }),
    messages: createMessagesRepository({ db, clock, engine }),
    idempotency: createIdempotencyRepository({ db, clock, engine, requestTimeoutMs: config.requestTimeoutMs }),
    limiter: createRateLimiter({
      store: rateLimitStore,
      clock,
      limits: config,
      events: {
        refused: (reason, subject, by) => (
          metrics.refusals.inc({ reason, subject }), metrics.refused(by.limit, by.plan)
        ),
        banned: (ban) => {
          metrics.bans.inc()
          limitEvents?.banned(ban)
        },
        ...(limitEvents ? { quotaCrossed: limitEvents.quotaCrossed } : {}),
      },
    }),
    cursors: createCursorCodec({ secret: await loadOrCreateSecret(db, 'cursor_secret') }),
    adminToken: await loadOrCreateSecret(db, ADMIN_TOKEN_SETTING),
    portal,
    /** The mailer of the portal and the console; absent where neither is on or no MAIL_URL is set. */
    mailer,
    /** Endpoints, events and the delivery worker (WEBHOOKS=on; docs/integrators/webhooks.md). */
    webhooks: config.webhooks ? webhookServices({ config, db, clock, metrics, mailer, engine, events }) : undefined,
    /**
     * The events kept for integrators, purged after WEBHOOK_RETENTION_DAYS even with WEBHOOKS=off: the database
     * goes on recording the events of endpoints that were left enabled (docs/operators/configuration.md).
     */
    events,
    /** Requests for a higher plan (the portal asks, the console decides); where either is on. */
    planRequests,
    /** Operators of the console (only where the console is on: CONSOLE, see config.ts). */
    operators: config.console ? createOperatorsRepository({ db, clock, engine }) : undefined,
    /** The console's own secrets (its CSRF tokens differ from the portal's). */
    console: config.console ? { csrfSecret: await loadOrCreateSecret(db, 'console_csrf_secret') } : undefined,
  }
}

/** The developer portal's own services (only when PORTAL is on: with it off nothing of it is built). */
/**
 * What seals the integrators' authenticator-app secrets: PETSTORE_SECRETS_KEY, or outside production the public
 * development key. In production without the key, no app can be added (passkeys still can; the page says why).
 */
function factorSecrets(config: Config): SecretBox | undefined {
  if (config.secretsKey) return createSecretBox(config.secretsKey)
  return config.environment === 'production' ? undefined : createSecretBox(parseSecretsKeys(DEVELOPMENT_SECRETS_KEY))
}

async function portalServices({
  config,
  db,
  clock,
  accounts,
  verification,
  mailer,
  planRequests,
  rateLimitStore,
  teams,
}: {
  config: Config
  db: Kysely<Database>
  clock: Clock
  accounts: ReturnType<typeof createAccountsRepository>
  verification: ReturnType<typeof createVerification>
  mailer: Mailer
  planRequests: PlanRequests
  rateLimitStore: RateLimitStore
  teams: Teams
}) {
  // A new portal user owns the account made with it.
  const onUserCreated = (trx: Kysely<Database>, user: { id: string; account_id: string }) =>
    teams.addOwner(trx, user.account_id, user.id)
  const repo = createPortalRepository({ db, clock, accounts, onUserCreated })
  return {
    verification,
    repo,
    /** Accounts operators make, with a link for their owner to choose a password (PORTAL_SIGNUP=closed). */
    invitations: createInvitations({ repo, publicUrl: config.publicUrl }),
    settings: createSettingsRepository({ db, clock }),
    knownDevices: createKnownDevices({ db, clock }),
    mailer,
    planRequests,
    // In the rate-limit store, shared by every instance like the API's limits.
    planRequestThrottle: createPlanRequestThrottle({ store: rateLimitStore, clock }),
    csrfSecret: await loadOrCreateSecret(db, 'portal_csrf_secret'),
    flashSecret: await loadOrCreateSecret(db, 'portal_flash_secret'),
  }
}

export type Services = Awaited<ReturnType<typeof buildServices>>
