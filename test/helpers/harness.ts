// The shared test harness: a real app on a real (in-memory) SQLite with every migration applied.
// Tests talk to it through HTTP: `inject` for most, a listening server and `fetch` where sockets matter.
import { createServer, type AddressInfo } from 'node:net'
import type { TestContext } from 'node:test'
import type { FastifyInstance } from 'fastify'
import type { KyselyPlugin } from 'kysely'
import { keyEnvironment } from '../../src/accounts/api-keys.js'
import { buildApp } from '../../src/app.js'
import { createManualClock } from '../../src/clock.js'
import { loadConfig, type Config } from '../../src/config.js'
import type { DatabaseHandle } from '../../src/db/database.js'
import { testBackend } from './backend.js'
import { recordResponses } from './contract.js'

export interface TestAccount {
  accountId: string
  keyId: string
  key: string
}

export interface Harness {
  app: FastifyInstance
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
  const config = loadConfig({ LOG_LEVEL: 'silent', ...(port ? { PORT: String(port) } : {}), ...options.env }, { databaseUrl: store.url, ...(store.redisUrl ? { redisUrl: store.redisUrl } : {}), ...options.config })
  const handle = store.handle
  const clock = createManualClock(options.now ?? new Date('2027-01-01T00:00:00Z'))
  const db = (options.plugins ?? []).reduce((wrapped, plugin) => wrapped.withPlugin(plugin), handle.db)
  // With plugins, every query goes through Kysely so that the plugins see it (no precompiled fast path).
  const engine = options.plugins ? undefined : handle.engine
  const app = await buildApp({ config, db, pool: handle.pool, reads: handle.reads, engine, clock, rateLimitStore: store.rateLimitStore, logger: options.logger ?? false })
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
    async () => store.rateLimitStore?.close(),
    () => handle.close(),
  )
  return {
    app,
    handle,
    config,
    clock,
    baseUrl,
    async newAccount(input = {}) {
      const account = await app.accounts.createAccount({ name: input.name ?? 'test', plan: input.plan ?? 'free', perMinute: input.perMinute, perDay: input.perDay })
      const key = await app.accounts.createApiKey({ accountId: account.id, environment: keyEnvironment(config.environment) })
      return { accountId: account.id, keyId: key.id, key: key.key }
    },
  }
}

/** A port nobody listens on now (the OS's pick, released at once). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

/** Asserts the one error shape of the API and returns the body. */
export function errorOf(response: { statusCode: number; headers: Record<string, unknown>; body: string }): { code: string; message: string; status: number } {
  const body = JSON.parse(response.body) as { code: string; message: string; status: number }
  const keys = Object.keys(body).sort().join(',')
  if (keys !== 'code,message,status') throw new Error(`not the Error shape: ${response.body}`)
  if (body.status !== response.statusCode) throw new Error(`status ${body.status} in body, ${response.statusCode} on the response`)
  if (!String(response.headers['content-type']).startsWith('application/json')) throw new Error(`content-type ${String(response.headers['content-type'])}`)
  if (typeof body.message !== 'string' || body.message.length === 0) throw new Error('empty message')
  return body
}
