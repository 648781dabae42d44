// Runs the service: opens and migrates the database, builds the services once, serves the pet store and/or
// the messages interface, runs the background loops, and shuts everything down gracefully.
import closeWithGrace from 'close-with-grace'
import type { FastifyInstance } from 'fastify'
import { createAccountPurge } from '../modules/accounts/account-purge.js'
import { createAuditRetention } from '../modules/audit/audit-retention.js'
import { recordExpiringKeys } from '../modules/accounts/key-expiry-events.js'
import { keepAuditEntries } from '../modules/audit/audit-guard.js'
import { logAuditEntries } from '../modules/audit/audit.repository.js'
import { bootstrapLocalAccount } from '../modules/accounts/bootstrap.js'
import { buildApp } from './api-app.js'
import { loggerOptions } from '../api/platform/base-app.js'
import type { Config } from '../kernel/config.js'
import { DatabaseMissing, openDatabase } from '../db/database.js'
import { migrateToLatest } from '../db/migrate.js'
import { claimEnvironment } from '../db/settings.js'
import { buildMessagesApp } from './messages-app.js'
import { buildConsoleApp } from './console-app.js'
import { createLogSink, createWebhookSink } from '../modules/messages/sinks.js'
import { createMessageWorker } from '../modules/messages/worker.js'
import { createRateLimitStore } from '../modules/limits/store-from-config.js'
import { buildServices } from './services.js'
import { deliveryThread } from './webhook-sender.js'
import { pino } from 'pino'
import { isDatabaseUnavailable } from '../db/unavailable.js'
import { bannerStream, createLogDestination } from '../ops/log-output.js'
import { reasonOf } from '../kernel/reason.js'

/** How long in-flight requests get to finish after SIGTERM/SIGINT before the process exits anyway. */
export const SHUTDOWN_GRACE_MS = 10_000
const STOP_SIGNALS: Array<'SIGTERM' | 'SIGINT'> = ['SIGTERM', 'SIGINT']
/**
 * A stop signal repeated this soon after the first is the same stop arriving twice: sent to the process group (a
 * container runtime, Ctrl-C) it reaches node and `npm start`, which forwards it to node again. It must not cut the
 * drain short; a later repeat (Ctrl-C pressed again) exits at once.
 */
const REPEATED_SIGNAL_MS = 1_000
/** Messages one delivery step claims at once. */
const DELIVERY_BATCH = 20
/** How often expired Idempotency-Key records and old usage rows are deleted. */
const PURGE_EVERY_MS = 10 * 60 * 1000
/** How often the buffered usage counts are added to the database (what another instance may not see yet). */
const USAGE_FLUSH_EVERY_MS = 5_000
// How often the webhook worker looks for new events and due retries (95 % of events go out within 5 s).
const WEBHOOK_POLL_MS = 500

export type Interface = 'pets' | 'messages'

const hostForUrl = (host: string) => (host.includes(':') ? `[${host}]` : host)

interface StartOptions {
  only?: Interface
  out?: NodeJS.WritableStream
  skipMigrations?: boolean
  /** May start a new SQLite database where DATABASE_URL names none (`serve --create`, or the default path). */
  create?: boolean
  /** Where the start-up banner goes (default: `out`); a cluster worker hands it to its primary. */
  announce?: (banner: string) => void
  /** Say nothing when Redis is not reachable at start (a cluster worker other than the first). */
  quietRedis?: boolean
}

/** A start-up failure the operator can act on: printed as one line, without a stack. */
class StartError extends Error {}

/** The database DATABASE_URL names; a SQLite file that must exist and does not: a StartError naming both. */
function openDatabaseNamed(config: Config, options: Parameters<typeof openDatabase>[1]) {
  try {
    return openDatabase(config.databaseUrl, options)
  } catch (error) {
    if (!(error instanceof DatabaseMissing)) throw error
    throw new StartError(
      `${error.message}, or start a new one with \`petstore serve --create\` (or \`petstore migrate\`)`,
    )
  }
}

/** Opens and (unless told not to) migrates the database; unreachable: a StartError naming it. */
export async function openAndMigrate(
  config: Config,
  options: { poolSize?: number; skipMigrations?: boolean; create?: boolean } = {},
) {
  const handle = openDatabaseNamed(config, {
    poolSize: options.poolSize ?? config.databasePoolSize,
    // Opened at the first hot read only: the cluster primary, which only migrates, opens none.
    pipelinedConnections: config.databasePipelinedConnections,
    timeoutMs: config.databaseTimeoutMs,
    sqliteCacheMb: config.sqliteCacheMb,
    // A cluster's workers open what their primary made.
    mustExist: !options.create && !options.skipMigrations,
  })
  try {
    if (!options.skipMigrations) {
      // Each migration applied is one log line (its name and durationMs), in the process's log format.
      const migrationLog = createLogDestination(config, 1, { sync: true })
      await migrateToLatest(handle.db, pino({ level: config.logLevel }, migrationLog))
      migrationLog.flushSync()
      // AUDIT_RETENTION_DAYS into the audit log's trigger (audit-guard.ts); a cluster's workers leave it to the
      // primary.
      await keepAuditEntries(handle.db, config.auditRetentionDays)
    }
  } catch (error) {
    await handle.close().catch(() => {})
    throw new StartError(`cannot use the database at ${handle.location}: ${reasonOf(error)}`)
  }
  return handle
}

export async function startServer(config: Config, options: StartOptions = {}): Promise<void> {
  const out = options.out ?? bannerStream()
  const serves = (i: Interface) => options.only === undefined || options.only === i
  const handle = await openAndMigrate(config, { skipMigrations: options.skipMigrations, create: options.create })
  await claimEnvironment(handle.db, config.environment, handle.location)
  // One destination for every logger of the process (JSON lines on stdout, or pino-pretty: LOG_FORMAT).
  const logDestination = createLogDestination(config)
  const bootLog = pino({ level: config.logLevel }, logDestination)
  // Each audit entry this process writes is a log line too (for shipping the log elsewhere: docs/operators/console.md,
  // Audit log).
  logAuditEntries(bootLog)
  // Without Redis, the limits' counts and bans live in the embedded database too, so a restart keeps them.
  const rateLimitStore = await createRateLimitStore(config, bootLog, {
    quiet: options.quietRedis,
    sqlite: handle.dialect === 'sqlite' ? handle.db : undefined,
  })
  const services = await buildServices({
    config,
    db: handle.db,
    pool: handle.pool,
    reads: handle.reads,
    engine: handle.engine,
    rateLimitStore,
    log: bootLog,
  })
  const local = await bootstrapLocalAccount({ db: handle.db, accounts: services.accounts, config })

  const logger = loggerOptions(config, logDestination)
  const petsApp = serves('pets') ? await buildApp({ config, db: handle.db, services, logger }) : undefined
  const messagesApp = serves('messages')
    ? await buildMessagesApp({ config, db: handle.db, services, logger })
    : undefined
  // The console on a listener of its own (CONSOLE_PORT), beside the pet store's.
  const consoleApp =
    serves('pets') && config.console && config.consolePort !== undefined
      ? await buildConsoleApp({ services, logger })
      : undefined
  const apps = [petsApp, messagesApp, consoleApp].filter((app): app is FastifyInstance => app !== undefined)
  const log = apps[0]!.log

  const worker = serves('messages')
    ? createMessageWorker({
        messages: services.messages,
        sink: services.metrics.countingFailures(
          config.messagesSink,
          config.messagesSink === 'webhook'
            ? createWebhookSink({
                url: config.webhookUrl!,
                secret: config.webhookSecret!,
                timeoutMs: config.webhookTimeoutMs,
              })
            : createLogSink(log, { text: config.messagesLogText }),
        ),
        clock: services.clock,
        log,
        maxAttempts: config.webhookMaxAttempts,
        retryScheduleMs: config.webhookRetrySchedule,
        pollMs: config.messagesPollMs,
        batchSize: DELIVERY_BATCH,
        // A claim must outlast the slowest delivery of its whole batch, or another instance could take over
        // messages still waiting their turn here (and deliver them twice).
        leaseMs: DELIVERY_BATCH * (config.webhookTimeoutMs + 1_000),
        databaseOutage: services.outages.database,
      })
    : undefined
  // A database outage is one warning and a count every 30 s (ops/outage-log.ts), not a stack every 5 s.
  const loopFailed = (what: string) => (err: unknown) =>
    isDatabaseUnavailable(err) ? services.outages.database.failed(err) : log.error({ err }, what)
  // key.expiring events: at start and with the purges (key-expiry-events.ts; each is recorded once).
  const expiringKeys = () => recordExpiringKeys({ db: handle.db, engine: handle.engine, clock: services.clock })
  if (services.webhooks) expiringKeys().catch(loopFailed('recording key.expiring events failed'))
  // Events to integrators' endpoints: every instance that serves the API delivers; the lease shares the work.
  // Its HTTP requests in a thread of their own (webhook-sender.ts).
  const sender =
    serves('pets') && services.webhooks
      ? deliveryThread(services.webhooks.httpSettings, log, services.webhooks.send)
      : undefined
  const webhookWorker = serves('pets') ? services.webhooks?.worker(log, sender?.send) : undefined
  webhookWorker?.start(WEBHOOK_POLL_MS, loopFailed('webhook delivery step failed'))
  const purge = setInterval(() => {
    services.idempotency.purgeExpired().catch(loopFailed('purging idempotency keys failed'))
    services.usage.purge(services.clock.now()).catch(loopFailed('purging old usage rows failed'))
    services.events.purge(config.eventRetentionDays).catch(loopFailed('purging old events failed'))
    if (services.webhooks) expiringKeys().catch(loopFailed('recording key.expiring events failed'))
  }, PURGE_EVERY_MS).unref()
  // Deleted accounts' pets, orders and messages: removed at start and every hour (account-purge.ts).
  const accountPurge = createAccountPurge({ db: handle.db, clock: services.clock, engine: handle.engine, log })
  accountPurge.start()
  // Audit log entries past AUDIT_RETENTION_DAYS: deleted at start and every hour (audit-retention.ts).
  const auditRetention = createAuditRetention({ audit: services.audit, days: config.auditRetentionDays, log })
  auditRetention.start()
  const usageFlush = setInterval(() => {
    services.usage.flush().catch(loopFailed('writing usage counts failed; they are kept for the next try'))
  }, USAGE_FLUSH_EVERY_MS).unref()

  const grace = closeWithGrace({ delay: SHUTDOWN_GRACE_MS, skip: STOP_SIGNALS }, async ({ signal, err }) => {
    if (err) log.error({ err }, 'shutting down after an uncaught error')
    else if (signal) log.info({ signal }, 'shutting down')
    clearInterval(purge)
    clearInterval(usageFlush)
    // Stop accepting and finish in-flight requests, then the worker's current step, then the stores.
    await Promise.all(apps.map((app) => app.close()))
    await worker?.stop()
    await webhookWorker?.stop()
    await sender?.close()
    await accountPurge.stop()
    await auditRetention.stop()
    // After the last request: every counted request reaches the database; then the store made above.
    await services.close()
    await rateLimitStore.close()
    await handle.close()
    logDestination.flushSync()
  })
  let stopAt: number | undefined
  const stop = (signal: NodeJS.Signals) => {
    if (stopAt === undefined) {
      stopAt = Date.now()
      log.info({ signal }, 'shutting down')
      void grace.close()
    } else if (Date.now() - stopAt > REPEATED_SIGNAL_MS) {
      log.warn({ signal }, 'stop signal repeated: exiting without finishing')
      logDestination.flushSync()
      process.exit(1)
    }
  }
  for (const signal of STOP_SIGNALS) process.on(signal, stop)

  const lines: string[] = []
  if (petsApp) {
    await petsApp.listen({ host: config.host, port: config.port })
    const base = `http://${hostForUrl(config.host)}:${config.port}`
    lines.push(`Pet store API (${config.environment}) at ${base}/v1  ·  docs ${base}/docs`)
  }
  if (messagesApp) {
    await messagesApp.listen({ host: config.host, port: config.messagesPort })
    const base = `http://${hostForUrl(config.host)}:${config.messagesPort}`
    lines.push(`Messages interface at ${base}  ·  docs ${base}/docs  ·  delivery: ${config.messagesSink}`)
  }
  if (consoleApp) {
    await consoleApp.listen({ host: config.consoleHost, port: config.consolePort })
    const listening = `${config.consoleHost}:${config.consolePort}`
    lines.push(`Operator console at ${config.consolePublicUrl}/console (listening on ${listening})`)
  }
  worker?.start()
  let banner = `${lines.join('\n')}\nDatabase: ${handle.location}\n`
  if (local) {
    const auth = `-H "Authorization: Bearer ${local.key}"`
    const tryIt = serves('pets')
      ? `curl ${auth} http://${hostForUrl(config.host)}:${config.port}/v1/pets`
      : `curl ${auth} -H 'Content-Type: application/json' -d ` +
        `'{"message":"Hello"}' http://${hostForUrl(config.host)}:${config.messagesPort}/messages`
    banner +=
      `\nCreated a local account (${local.accountId}, plan free) and its API key. It is shown once, ` +
      `now:\n\n  ${local.key}\n\nTry it:\n  ${tryIt}\n\n`
  }
  ;(options.announce ?? ((text: string) => out.write(text)))(banner)
}
