// A server as a deployment runs several of them: its own config, database handle and services on a shared
// PostgreSQL database, remembering key look-ups for a minute (KEY_CACHE_TTL_MS=60000), so that only the LISTEN/NOTIFY
// announcement can explain a prompt refusal. Ready once it listens for key changes; closed after the test.
import assert from 'node:assert/strict'
import { loadConfig } from '../../src/kernel/config.js'
import { openDatabase } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import { postgresSchema } from './backend.js'
import { bearer } from './harness.js'
import { pollUntil } from './within.js'
import { appWithServices } from './app-with-services.js'

export async function keyCachingServer(
  t: { after: (fn: () => Promise<void>) => void },
  url: string,
  env: NodeJS.ProcessEnv = {},
) {
  const config = loadConfig({ LOG_LEVEL: 'silent', KEY_CACHE_TTL_MS: '60000', ...env }, { databaseUrl: url })
  const handle = openDatabase(url, { poolSize: 2 })
  const { app, services } = await appWithServices({
    config,
    db: handle.db,
    pool: handle.pool,
    engine: handle.engine,
    logger: false,
  })
  t.after(async () => {
    await app.close()
    await services.close()
    await handle.close()
  })
  await pollUntil(
    'listening for key changes',
    async () => (services.keyCache?.listening ? true : undefined),
    10_000,
    10,
  )
  const hits = async () =>
    (await services.metrics.registry.getSingleMetric('petstore_key_cache_lookups_total')!.get()).values.find(
      (v) => v.labels.result === 'hit',
    )?.value ?? 0
  return { app, services, config, hits, get: (key: string) => app.inject({ url: '/v1/pets', headers: bearer(key) }) }
}

/**
 * Uses `key` until `server` answers it from its cache. The change channel is one per database, so a key change
 * by a test running at the same time on another schema empties this cache too: a pair of requests may miss, a
 * few pairs in a row cannot (unless the cache does not work, which this then asserts).
 */
export async function warmKeyCache(
  server: { get: (key: string) => Promise<{ statusCode: number }>; hits: () => Promise<number> },
  key: string,
): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const before = await server.hits()
    for (let i = 0; i < 2; i++) assert.equal((await server.get(key)).statusCode, 200)
    if ((await server.hits()) > before) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  assert.fail('20 pairs of requests in a row were not answered from the cache')
}

/** Two such servers on a fresh, migrated PostgreSQL schema: a change made through one must reach the other. */
export async function twoKeyCachingServers(t: { after: (fn: () => Promise<void>) => void }) {
  const url = await postgresSchema(t)
  const setup = openDatabase(url, { poolSize: 1 })
  await migrateToLatest(setup.db)
  t.after(() => setup.close())
  const a = await keyCachingServer(t, url)
  const b = await keyCachingServer(t, url)
  return { a, b }
}

/**
 * Milliseconds until `get` answers `status` (polling every 5 ms), Infinity past `limitMs`. `check` asserts more
 * of the first response with that status.
 */
export async function msUntilStatus<R extends { statusCode: number }>(
  get: () => Promise<R>,
  status: number,
  options: { limitMs?: number; check?: (response: R) => void } = {},
): Promise<number> {
  const start = performance.now()
  for (;;) {
    const response = await get()
    if (response.statusCode === status) {
      options.check?.(response)
      return performance.now() - start
    }
    if (performance.now() - start > (options.limitMs ?? 5_000)) return Infinity
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}
