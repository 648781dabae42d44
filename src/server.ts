// Runs the service: opens and migrates the database, builds the services once, serves the pet store and/or
// the messages interface, runs the background loops, and shuts everything down gracefully.
import closeWithGrace from 'close-with-grace'
import type { FastifyInstance } from 'fastify'
import { createAccountPurge } from './accounts/account-purge.js'
import { bootstrapLocalAccount } from './accounts/bootstrap.js'
import { buildApp } from './app.js'
import { loggerOptions } from './http/base-app.js'
import type { Config } from './config.js'
import { openDatabase } from './db/database.js'
import { migrateToLatest } from './db/migrate.js'
import { claimEnvironment } from './db/settings.js'
import { buildMessagesApp } from './messages/messages.app.js'
import { createLogSink, createWebhookSink } from './messages/sinks.js'
import { createMessageWorker } from './messages/worker.js'
import { createRateLimitStore } from './limits/store-from-config.js'
import { buildServices } from './services.js'
import { pino } from 'pino'

/** How long in-flight requests get to finish after SIGTERM/SIGINT before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000
/** Messages one delivery step claims at once. */
const DELIVERY_BATCH = 20
/** How often expired Idempotency-Key records and old usage rows are deleted. */
const PURGE_EVERY_MS = 10 * 60 * 1000
/** How often the buffered usage counts are added to the database (what another instance may not see yet). */
const USAGE_FLUSH_EVERY_MS = 5_000

export type Interface = 'pets' | 'messages'

const hostForUrl = (host: string) => (host.includes(':') ? `[${host}]` : host)

export interface StartOptions {
  only?: Interface
  out?: NodeJS.WritableStream
  skipMigrations?: boolean
  /** Where the start-up banner goes (default: `out`); a cluster worker hands it to its primary. */
  announce?: (banner: string) => void
  /** Say nothing when Redis is not reachable at start (a cluster worker other than the first). */
  quietRedis?: boolean
}

/** A start-up failure the operator can act on: printed as one line, without a stack. */
export class StartError extends Error {}

/** The reason of a connection failure in one phrase (Node gives an AggregateError with no message for a name with two addresses). */
export function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return reasonOf(error.errors[0])
  if (!(error instanceof Error)) return String(error)
  const code = (error as { code?: string }).code
  return error.message || code || error.name
}

/** Opens and (unless told not to) migrates the database; unreachable: a StartError naming it. */
export async function openAndMigrate(config: Config, options: { poolSize?: number; skipMigrations?: boolean } = {}) {
  const handle = openDatabase(config.databaseUrl, {
    poolSize: options.poolSize ?? config.databasePoolSize,
    // Opened at the first hot read only: the cluster primary, which only migrates, opens none.
    pipelinedConnections: config.databasePipelinedConnections,
    timeoutMs: config.databaseTimeoutMs,
    sqliteCacheMb: config.sqliteCacheMb,
  })
  try {
    if (!options.skipMigrations) await migrateToLatest(handle.db)
  } catch (error) {
    await handle.close().catch(() => {})
    throw new StartError(`cannot use the database at ${handle.location}: ${reasonOf(error)}`)
  }
  return handle
}

export async function startServer(config: Config, options: StartOptions = {}): Promise<void> {
  const out = options.out ?? process.stdout
  const serves = (i: Interface) => options.only === undefined || options.only === i
  const handle = await openAndMigrate(config, { skipMigrations: options.skipMigrations })
  await claimEnvironment(handle.db, config.environment, handle.location)
  const bootLog = pino({ level: config.logLevel })
  const rateLimitStore = await createRateLimitStore(config, bootLog, { quiet: options.quietRedis })
  const services = await buildServices({ config, db: handle.db, pool: handle.pool, reads: handle.reads, engine: handle.engine, rateLimitStore, log: bootLog })
  const local = await bootstrapLocalAccount({ db: handle.db, accounts: services.accounts, config })

  // Log lines are written asynchronously: while one write is under way the next lines are buffered and go out
  // together, instead of one blocking write(2) per request. What is buffered is flushed on exit.
  const logDestination = pino.destination({ dest: 1, sync: false })
  const logger = loggerOptions(config, logDestination)
  const apps: FastifyInstance[] = []
  if (serves('pets')) apps.push(await buildApp({ config, db: handle.db, services, logger }))
  if (serves('messages')) apps.push(await buildMessagesApp({ config, db: handle.db, services, logger }))
  const log = apps[0]!.log

  const worker = serves('messages')
    ? createMessageWorker({
        messages: services.messages,
        sink:
          config.messagesSink === 'webhook'
            ? createWebhookSink({ url: config.webhookUrl!, secret: config.webhookSecret!, timeoutMs: config.webhookTimeoutMs })
            : createLogSink(log),
        clock: services.clock,
        log,
        maxAttempts: config.webhookMaxAttempts,
        retryScheduleMs: config.webhookRetrySchedule,
        pollMs: config.messagesPollMs,
        batchSize: DELIVERY_BATCH,
        // A claim must outlast the slowest delivery of its whole batch, or another instance could take over
        // messages still waiting their turn here (and deliver them twice).
        leaseMs: DELIVERY_BATCH * (config.webhookTimeoutMs + 1_000),
      })
    : undefined
  const purge = setInterval(() => {
    services.idempotency.purgeExpired().catch((err: unknown) => log.error({ err }, 'purging idempotency keys failed'))
    services.usage.purge(services.clock.now()).catch((err: unknown) => log.error({ err }, 'purging old usage rows failed'))
  }, PURGE_EVERY_MS).unref()
  // Deleted accounts' pets, orders and messages: removed at start and every hour (account-purge.ts).
  const accountPurge = createAccountPurge({ db: handle.db, clock: services.clock, engine: handle.engine, log })
  accountPurge.start()
  const usageFlush = setInterval(() => {
    services.usage.flush().catch((err: unknown) => log.error({ err }, 'writing usage counts failed; they are kept for the next try'))
  }, USAGE_FLUSH_EVERY_MS).unref()

  closeWithGrace({ delay: SHUTDOWN_GRACE_MS }, async ({ signal, err }) => {
    if (err) log.error({ err }, 'shutting down after an uncaught error')
    else log.info({ signal }, 'shutting down')
    clearInterval(purge)
    clearInterval(usageFlush)
    // Stop accepting and finish in-flight requests, then the worker's current step, then the stores.
    await Promise.all(apps.map((app) => app.close()))
    await worker?.stop()
    await accountPurge.stop()
    // After the last request: every counted request reaches the database.
    await services.usage.flush().catch((err: unknown) => log.error({ err }, 'writing usage counts at shutdown failed'))
    await services.rateLimitStore.close()
    await services.stopListening()
    await handle.close()
    logDestination.flushSync()
  })

  const lines: string[] = []
  if (serves('pets')) {
    await apps[0]!.listen({ host: config.host, port: config.port })
    const base = `http://${hostForUrl(config.host)}:${config.port}`
    lines.push(`Pet store API (${config.environment}) at ${base}/v1  ·  docs ${base}/docs`)
  }
  if (serves('messages')) {
    await apps[apps.length - 1]!.listen({ host: config.host, port: config.messagesPort })
    const base = `http://${hostForUrl(config.host)}:${config.messagesPort}`
    lines.push(`Messages interface at ${base}  ·  docs ${base}/docs  ·  delivery: ${config.messagesSink}`)
  }
  worker?.start()
  let banner = `${lines.join('\n')}\nDatabase: ${handle.location}\n`
  if (local) {
    const auth = `-H "Authorization: Bearer ${local.key}"`
    const tryIt = serves('pets')
      ? `curl ${auth} http://${hostForUrl(config.host)}:${config.port}/v1/pets`
      : `curl ${auth} -H 'Content-Type: application/json' -d '{"message":"Hello"}' http://${hostForUrl(config.host)}:${config.messagesPort}/messages`
    banner += `\nCreated a local account (${local.accountId}, plan free) and its API key. It is shown once, now:\n\n  ${local.key}\n\nTry it:\n  ${tryIt}\n\n`
  }
  ;(options.announce ?? ((text: string) => out.write(text)))(banner)
}
