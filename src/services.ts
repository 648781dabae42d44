// Every service of the process, built once from its dependencies and shared by both listeners: the same
// accounts, the same rate-limit store (one quota over both interfaces), the same idempotency records.
import type { Kysely } from 'kysely'
import type pg from 'pg'
import { createAccountsRepository } from './accounts/accounts.repository.js'
import { listenForKeyChanges } from './accounts/key-changes.js'
import { createKeyCache } from './accounts/key-cache.js'
import { systemClock, type Clock } from './clock.js'
import type { Config } from './config.js'
import { kyselyEngine, type Engine } from './db/engine.js'
import type { Database } from './db/schema.js'
import { loadOrCreateSecret } from './db/settings.js'
import { createCursorCodec } from './http/cursor.js'
import { createSendBatcher } from './http/send-batching.js'
import { createIdempotencyRepository } from './idempotency/idempotency.repository.js'
import { ADMIN_TOKEN_SETTING } from './limits/admin.routes.js'
import { createMemoryStore } from './limits/memory.store.js'
import type { RateLimitStore } from './limits/rate-limit.store.js'
import { createRateLimiter } from './limits/rate-limiter.js'
import { createMessagesRepository } from './messages/messages.repository.js'
import { createMetrics } from './ops/metrics.js'
import { createPetsRepository } from './pets/pets.repository.js'
import { createOrdersRepository } from './store/orders.repository.js'
import { createMailer } from './portal/mail.js'
import type { PipelinedReads } from './db/pipelined-reads.js'
import { createPortalRepository } from './portal/portal.repository.js'
import { createSettingsRepository } from './portal/settings.repository.js'
import { createUsage } from './usage/usage.service.js'

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
  /** Where services report trouble of their own (the key-change listener); silent when absent. */
  log?: { warn: (obj: object, msg: string) => void; info: (obj: object, msg: string) => void }
}

export async function buildServices({ config, db, pool, reads, engine = kyselyEngine(db), clock = systemClock, rateLimitStore = createMemoryStore(), log }: ServiceDependencies) {
  const metrics = createMetrics({ pool, reads })
  const sendBatcher = createSendBatcher()
  engine.onWritesSettled?.(sendBatcher.flushWhenSettled)
  // PostgreSQL: key look-ups are a round trip each, so servers remember them (see key-cache.ts). SQLite's
  // look-up is a few microseconds in this process, and the CLI changes keys from another one: no cache there.
  const keyCache = pool && config.keyCacheTtlMs > 0 ? createKeyCache({ ttlMs: config.keyCacheTtlMs }, metrics.keyCache) : undefined
  const keyChanges = pool && keyCache ? listenForKeyChanges({ pool, cache: keyCache, log }) : undefined
  const accounts = createAccountsRepository({ db, clock, engine, keyCache })
  return {
    metrics,
    config,
    db,
    clock,
    rateLimitStore,
    sendBatcher,
    accounts,
    keyCache,
    /** Stops listening for key changes (the owner of the services calls it when it closes). */
    stopListening: async () => keyChanges?.close(),
    usage: createUsage({ db, engine, accounts, store: rateLimitStore }),
    pets: createPetsRepository({ db, clock, engine }),
    orders: createOrdersRepository({ db, clock, engine }),
    messages: createMessagesRepository({ db, clock, engine }),
    idempotency: createIdempotencyRepository({ db, clock, engine }),
    limiter: createRateLimiter({
      store: rateLimitStore,
      clock,
      limits: config,
      events: { refused: (reason, subject) => metrics.refusals.inc({ reason, subject }), banned: () => metrics.bans.inc() },
    }),
    cursors: createCursorCodec({ secret: await loadOrCreateSecret(db, 'cursor_secret') }),
    adminToken: await loadOrCreateSecret(db, ADMIN_TOKEN_SETTING),
    portal: config.portal ? await portalServices({ config, db, clock, accounts }) : undefined,
  }
}

/** The developer portal's own services (only when PORTAL is on: with it off nothing of it is built). */
async function portalServices({ config, db, clock, accounts }: { config: Config; db: Kysely<Database>; clock: Clock; accounts: ReturnType<typeof createAccountsRepository> }) {
  return {
    repo: createPortalRepository({ db, clock, accounts }),
    settings: createSettingsRepository({ db, clock }),
    // loadConfig gives MAIL_URL a default wherever the portal can be on.
    mailer: createMailer({ url: config.mailUrl!, from: config.mailFrom }),
    csrfSecret: await loadOrCreateSecret(db, 'portal_csrf_secret'),
    flashSecret: await loadOrCreateSecret(db, 'portal_flash_secret'),
  }
}

export type Services = Awaited<ReturnType<typeof buildServices>>
