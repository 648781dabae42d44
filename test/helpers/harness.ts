// The shared test harness: a real app on a real (in-memory) SQLite with every migration applied.
// Tests talk to it through HTTP: `inject` for most, a listening server and `fetch` where sockets matter.
import type { TestContext } from 'node:test'
import type { FastifyInstance } from 'fastify'
import type { KyselyPlugin } from 'kysely'
import { keyEnvironment } from '../../src/modules/accounts/api-keys.js'
import type { Services } from '../../src/main/services.js'
import { appWithServices } from './app-with-services.js'
import { createManualClock } from '../../src/kernel/clock.js'
import { loadConfig, type Config } from '../../src/kernel/config.js'
import type { DatabaseHandle } from '../../src/db/database.js'
import { testBackend } from './backend.js'
import { recordResponses } from './contract.js'
import { testActor } from './actors.js'
import { freePort } from './ports.js'

export interface TestAccount {
  accountId: string
  keyId: string
  key: string
}

export interface Harness {
  app: FastifyInstance
  /** The app's services (built by the harness, closed with it). */
  services: Services
  handle: DatabaseHandle
  config: Config
  clock: ReturnType<typeof createManualClock>
  /** A new account (default plan free) with one API key of the app's environment. */
  newAccount: (input?: { plan?: string; perMinute?: number; perDay?: number; name?: string }) => Promise<TestAccount>
  /** Base URL of the listening server (only with `listen: true`), e.g. `http://127.0.0.1:41234`. */
  baseUrl: string
}

export async function startHarness(
  t: TestContext | { after: (fn: () => Promise<void>) => void },
  options: {
    config?: Partial<Config>
    env?: NodeJS.ProcessEnv
    now?: Date | number
    /** The app's clock follows real time (for a client that sleeps real seconds until a rate-limit window resets). */
    realTime?: boolean
    listen?: boolean
    /** Kysely plugins on the app's own database handle (e.g. to record the SQL a request runs). */
    plugins?: KyselyPlugin[]
    /** Logger options for the app (e.g. `{ level: 'trace', stream }` to capture the log); default off. */
    logger?: Record<string, unknown>
  } = {},
): Promise<Harness> {
  // Registered before the backend's own clean-up (hooks run in the order they were added): the app is closed,
  // and with it the work it runs after answering (the portal's mail jobs), before its PostgreSQL schema is dropped.
  const closers: Array<() => Promise<void>> = []
  t.after(async () => {
    for (const close of closers) await close()
  })
  const store = await testBackend(t)
  // A listening app gets its port first: the public URL defaults to the listener's own origin (its links, the
  // portal's origin check), as a server started with that PORT has.
  const port = options.listen ? await freePort() : undefined
  // On the PostgreSQL pass the limits live in Redis: the config says so too (readiness checks what it names).
  const config = loadConfig(
    { LOG_LEVEL: 'silent', ...testPasswordCost(options), ...(port ? { PORT: String(port) } : {}), ...options.env },
    { databaseUrl: store.url, ...(store.redisUrl ? { redisUrl: store.redisUrl } : {}), ...options.config },
  )
  const handle = store.handle
  const clock = createManualClock(options.now ?? new Date('2027-01-01T00:00:00Z'))
  if (options.realTime) clock.now = () => Date.now()
  const db = (options.plugins ?? []).reduce((wrapped, plugin) => wrapped.withPlugin(plugin), handle.db)
  // With plugins, every query goes through Kysely so that the plugins see it (no precompiled fast path).
  const engine = options.plugins ? undefined : handle.engine
  // Built here and closed here (after the app): what the app's routes use, and what a test reads or changes.
  const { app, services } = await appWithServices({
    config,
    db,
    pool: handle.pool,
    reads: handle.reads,
    engine,
    clock,
    rateLimitStore: store.rateLimitStore,
    logger: options.logger ?? false,
  })
  recordResponses(app, 'pets')
  let baseUrl = ''
  if (options.listen) {
    await app.listen({ host: '127.0.0.1', port: port! })
    const address = app.server.address()
    if (address === null || typeof address === 'string') throw new Error('no TCP address')
    baseUrl = `http://127.0.0.1:${address.port}`
  }
  closers.push(
    () => app.close(),
    () => services.close(),
    async () => store.rateLimitStore?.close(),
    () => handle.close(),
  )
  return {
    app,
    services,
    handle,
    config,
    clock,
    baseUrl,
    async newAccount(input = {}) {
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

/**
 * New password hashes at scrypt N = 2^4 instead of 2^15 (PASSWORD_HASH_COST): the suite signs up and logs in
 * hundreds of times, and a production-cost hash is about 0.1 s of a core. Not where the test's config is production
 * (which refuses it), nor where the test names PASSWORD_HASH_COST itself (`undefined`: the production default, as
 * test/sites/portal/passwords.security.test.ts and test/sites/kit/password-cost.test.ts use it).
 */
export function testPasswordCost(options: { env?: NodeJS.ProcessEnv; config?: Partial<Config> }): NodeJS.ProcessEnv {
  const production = (options.config?.environment ?? options.env?.PETSTORE_ENV) === 'production'
  return production || (options.env !== undefined && 'PASSWORD_HASH_COST' in options.env)
    ? {}
    : { PASSWORD_HASH_COST: '4' }
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

/** Asserts the one error shape of the API and returns the body. */
export function errorOf(response: { statusCode: number; headers: Record<string, unknown>; body: string }): {
  code: string
  message: string
  status: number
} {
  const body = JSON.parse(response.body) as { code: string; message: string; status: number }
  const keys = Object.keys(body).sort().join(',')
  if (keys !== 'code,message,status') throw new Error(`not the Error shape: ${response.body}`)
  if (body.status !== response.statusCode)
    throw new Error(`status ${body.status} in body, ${response.statusCode} on the response`)
  if (!String(response.headers['content-type']).startsWith('application/json'))
    throw new Error(`content-type ${String(response.headers['content-type'])}`)
  if (typeof body.message !== 'string' || body.message.length === 0) throw new Error('empty message')
  return body
}
