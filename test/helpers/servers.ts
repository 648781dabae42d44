// A server as a deployment runs several of them: its own config, database handle and services on a shared
// PostgreSQL database, remembering key look-ups for a minute (KEY_CACHE_TTL_MS=60000), so that only the LISTEN/NOTIFY
// announcement can explain a prompt refusal. Ready once it listens for key changes; closed after the test.
import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { openDatabase } from '../../src/db/database.js'
import { buildServices } from '../../src/services.js'
import { bearer } from './harness.js'
import { pollUntil } from './within.js'

export async function keyCachingServer(t: { after: (fn: () => Promise<void>) => void }, url: string, env: NodeJS.ProcessEnv = {}) {
  const config = loadConfig({ LOG_LEVEL: 'silent', KEY_CACHE_TTL_MS: '60000', ...env }, { databaseUrl: url })
  const handle = openDatabase(url, { poolSize: 2 })
  const services = await buildServices({ config, db: handle.db, pool: handle.pool, engine: handle.engine })
  const app = await buildApp({ config, db: handle.db, services, logger: false })
  t.after(async () => {
    await app.close()
    await services.stopListening()
    await handle.close()
  })
  await pollUntil('listening for key changes', async () => (services.keyCache?.listening ? true : undefined), 10_000, 10)
  return { app, services, config, get: (key: string) => app.inject({ url: '/v1/pets', headers: bearer(key) }) }
}
