// The messages interface under test: the messages app (and, on request, the pet store app) built on ONE
// services object — so one rate-limit store and one quota — over a real SQLite database with every
// migration applied, a manual clock, the app's log captured in memory, and a delivery worker that tests
// drive step by step with `await h.worker.runOnce()` (never started on a timer: no sleeping anywhere).
import type { TestContext } from 'node:test'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { keyEnvironment } from '../../src/modules/accounts/api-keys.js'
import { buildApp } from '../../src/main/api-app.js'
import { createManualClock } from '../../src/kernel/clock.js'
import { loadConfig, type Config } from '../../src/kernel/config.js'
import { recordResponses } from './contract.js'
import { openDatabase } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import { buildMessagesApp } from '../../src/main/messages-app.js'
import { createLogSink, createWebhookSink, type MessageSink } from '../../src/modules/messages/sinks.js'
import { createMessageWorker, type MessageWorker } from '../../src/modules/messages/worker.js'
import { buildServices, type Services } from '../../src/main/services.js'
import { testBackend } from './backend.js'
import { bearer, type Harness, type TestAccount } from './harness.js'
import { testActor } from './actors.js'

type After = TestContext | { after: (fn: () => Promise<void>) => void }

/** One line of the captured pino log, parsed. */
export type LogLine = Record<string, any> & { level: number; msg: string }

export interface MessagesHarness extends Harness {
  /** `app` is the messages app; this is the pet store app on the same services (only with `pets: true`). */
  pets: FastifyInstance | undefined
  services: Services
  worker: MessageWorker
  /** Every line the messages app's logger (and so the log sink) wrote so far. */
  log: () => LogLine[]
  /** The same, as the raw writes the logger made. */
  rawLog: () => string[]
  /** Closes the apps and the database now (also done after the test); safe to call twice. */
  close: () => Promise<void>
}

interface MessagesHarnessOptions {
  /**
   * Environment variables for `loadConfig` (e.g. MESSAGES_WEBHOOK_MAX_ATTEMPTS); LOG_LEVEL is silent for the pets
   * app.
   */
  env?: NodeJS.ProcessEnv
  config?: Partial<Config>
  now?: Date | number
  /** Also build the pet store app on the same services. */
  pets?: boolean
  /** Listen on 127.0.0.1:0 (messages app) and fill `baseUrl`. */
  listen?: boolean
  /** Worker batch size (default the worker's own, 20). */
  batchSize?: number
  /** The retry jitter's source, in [0, 1]; default `() => 1`: every retry at its full nominal delay. */
  random?: () => number
  /**
   * Sink for the worker; default as the server chooses it: webhook when configured, else the log sink on the app's
   * log.
   */
  sink?: MessageSink
}

export async function startMessagesHarness(t: After, options: MessagesHarnessOptions = {}): Promise<MessagesHarness> {
  // A given database (a file, for restart tests) is used as is; otherwise the run's backend gives a fresh one.
  const given = options.config?.databaseUrl
  const store = given === undefined ? await testBackend(t) : undefined
  const config = loadConfig(
    { LOG_LEVEL: 'silent', ...options.env },
    {
      databaseUrl: store?.url ?? ':memory:',
      ...(store?.redisUrl ? { redisUrl: store.redisUrl } : {}),
      ...options.config,
    },
  )
  const handle = store?.handle ?? openDatabase(config.databaseUrl)
  if (!store) await migrateToLatest(handle.db)
  const clock = createManualClock(options.now ?? new Date('2027-01-01T00:00:00Z'))
  const services = await buildServices({
    config,
    db: handle.db,
    pool: handle.pool,
    engine: handle.engine,
    clock,
    rateLimitStore: store?.rateLimitStore,
  })

  const lines: string[] = []
  const stream = { write: (line: string) => void lines.push(line) }
  const app = await buildMessagesApp({ config, db: handle.db, clock, services, logger: { level: 'info', stream } })
  const pets = options.pets ? await buildApp({ config, db: handle.db, clock, services, logger: false }) : undefined
  recordResponses(app, 'messages')
  if (pets) recordResponses(pets, 'pets')

  const sink =
    options.sink ??
    (config.messagesSink === 'webhook'
      ? createWebhookSink({
          url: config.webhookUrl!,
          secret: config.webhookSecret!,
          timeoutMs: config.webhookTimeoutMs,
        })
      : createLogSink(app.log, { text: config.messagesLogText }))
  const worker = createMessageWorker({
    messages: services.messages,
    sink,
    clock,
    log: app.log,
    maxAttempts: config.webhookMaxAttempts,
    retryScheduleMs: config.webhookRetrySchedule,
    // The full nominal delays unless a test asks otherwise: retries come exactly at the schedule's steps.
    random: options.random ?? (() => 1),
    pollMs: config.messagesPollMs,
    batchSize: options.batchSize,
  })

  let baseUrl = ''
  if (options.listen) {
    await app.listen({ host: '127.0.0.1', port: 0 })
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  }

  let closed: Promise<void> | undefined
  const close = () =>
    (closed ??= (async () => {
      await app.close()
      await pets?.close()
      await worker.stop()
      // The apps were given the services, so neither closes them: whoever built them (here) does, and the store
      // the backend gave is closed here too.
      await services.close()
      await store?.rateLimitStore?.close()
      await handle.close()
    })())
  t.after(close)

  return {
    app,
    pets,
    handle,
    config,
    clock,
    baseUrl,
    services,
    worker,
    close,
    log: () => lines.map((line) => JSON.parse(line) as LogLine),
    rawLog: () => [...lines],
    async newAccount(input = {}): Promise<TestAccount> {
      const account = await services.accounts.createAccount({
        actor: testActor,
        name: input.name ?? 'test',
        plan: input.plan ?? 'free',
        perMinute: input.perMinute,
        perDay: input.perDay,
      })
      const key = await services.accounts.createApiKey({
        actor: testActor,
        accountId: account.id,
        environment: keyEnvironment(config.environment),
      })
      return { accountId: account.id, keyId: key.id, key: key.key }
    },
  }
}

export interface MessageJson {
  id: string
  message: string
  status: 'queued' | 'delivered' | 'failed'
  createdAt: string
}

/** POST /messages through `inject`; returns the raw response. */
export function postMessage(h: Pick<Harness, 'app'>, key: string, body: unknown, headers: Record<string, string> = {}) {
  return h.app.inject({
    method: 'POST',
    url: '/messages',
    headers: { ...bearer(key), 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

/** POST /messages that must be accepted (202); returns the Message. */
export async function sendMessage(h: Pick<Harness, 'app'>, key: string, message: string): Promise<MessageJson> {
  const response = await postMessage(h, key, { message })
  if (response.statusCode !== 202)
    throw new Error(`POST /messages: expected 202, got ${response.statusCode} ${response.body}`)
  return response.json<MessageJson>()
}

/** GET /messages/{id} that must succeed (200); returns the Message. */
export async function getMessage(h: Pick<Harness, 'app'>, key: string, id: string): Promise<MessageJson> {
  const response = await h.app.inject({ url: `/messages/${id}`, headers: bearer(key) })
  if (response.statusCode !== 200)
    throw new Error(`GET /messages/${id}: expected 200, got ${response.statusCode} ${response.body}`)
  return response.json<MessageJson>()
}

/** The rows of the messages table, oldest first (the real database, read directly). */
export function messageRows(h: Pick<Harness, 'handle'>) {
  return h.handle.db.selectFrom('messages').selectAll().orderBy('seq').execute()
}

/** A Standard Webhooks signing secret: `whsec_` + 32 random bytes, base64. */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`

export interface ReceivedWebhook {
  method: string
  /** Path (and query) the request was sent to. */
  url: string
  headers: IncomingHttpHeaders
  /** The body exactly as it arrived (what the signature covers). */
  body: string
}

/** How the receiver answers: a status, or a status with headers (e.g. a redirect's Location). */
export type ReceiverAnswer = number | { status: number; headers: Record<string, string> }

/** Answers the n-th request with `answers[n]`; the last answer repeats. */
export const inTurn =
  (...answers: ReceiverAnswer[]) =>
  (_request: ReceivedWebhook, index: number): ReceiverAnswer =>
    answers[Math.min(index, answers.length - 1)]!

/**
 * A webhook receiver started by the test on 127.0.0.1 (port 0): records every request and answers it
 * with `answer(request, index)`. Closed after the test.
 */
export async function startReceiver(
  t: After,
  answer: (request: ReceivedWebhook, index: number) => ReceiverAnswer,
): Promise<{ url: string; origin: string; received: ReceivedWebhook[] }> {
  const received: ReceivedWebhook[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      }
      const given = answer(request, received.length)
      received.push(request)
      const { status, headers } = typeof given === 'number' ? { status: given, headers: {} } : given
      res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(status < 300 ? 'ok' : 'not ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { url: `${origin}/hooks/messages`, origin, received }
}

/** The environment that selects the webhook sink towards `url` with `secret`. */
export const webhookEnv = (
  url: string,
  secret: string,
  extra: Record<string, string> = {},
): Record<string, string> => ({
  MESSAGES_SINK: 'webhook',
  MESSAGES_WEBHOOK_URL: url,
  MESSAGES_WEBHOOK_SECRET: secret,
  ...extra,
})
