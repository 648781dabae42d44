// A Redis outage seen through HTTP, on an app built as the server builds it (REDIS_URL, the store from config)
// over a private redis-server: a free account keeps getting answers, limited per instance at 60 ÷ 3 = 20 a
// minute, /readyz names Redis while it is down, and the app uses Redis again when it returns, without a restart.
// Also when Redis is not there at start. Runs in the PostgreSQL + Redis pass.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { keyEnvironment } from '../../src/accounts/api-keys.js'
import { buildApp } from '../../src/app.js'
import { createManualClock } from '../../src/clock.js'
import { loadConfig } from '../../src/config.js'
import { openDatabase } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import { createRateLimitStore } from '../../src/limits/store-from-config.js'
import { freshRedisPrefix, postgresOnly, postgresSchema } from '../helpers/backend.js'
import { captureConsoleErrors, captureLog, OUTAGE, RECOVERY } from '../helpers/capture-log.js'
import { bearer, errorOf } from '../helpers/harness.js'
import { redisServer, type RedisServer } from '../helpers/redis-server.js'
import { pollUntil, within } from '../helpers/within.js'

async function startApp(t: { after: (fn: () => Promise<void>) => void }, redis: RedisServer) {
  const databaseUrl = await postgresSchema(t)
  const handle = openDatabase(databaseUrl, { poolSize: 2 })
  await migrateToLatest(handle.db)
  const env = { LOG_LEVEL: 'silent', REDIS_URL: redis.url, REDIS_PREFIX: freshRedisPrefix(), RATE_LIMIT_FALLBACK_DIVISOR: '3' }
  const config = loadConfig(env, { databaseUrl })
  const { log, count } = captureLog()
  const store = await createRateLimitStore(config, log)
  // Mid-minute, so that every request of the test falls in one minute window.
  const clock = createManualClock(new Date('2027-01-01T00:00:30Z'))
  const app = await buildApp({ config, db: handle.db, pool: handle.pool, engine: handle.engine, clock, rateLimitStore: store, logger: false })
  t.after(async () => {
    await app.close()
    await store.close()
    await handle.close()
  })
  const account = await app.accounts.createAccount({ name: 'fallback', plan: 'free' })
  const { key } = await app.accounts.createApiKey({ accountId: account.id, environment: keyEnvironment(config.environment) })
  const get = (url: string) => within(app.inject({ url, headers: bearer(key) }), `GET ${url}`)
  return { app, count, get }
}

const limitOf = (r: { headers: Record<string, unknown> }) => [r.headers['x-ratelimit-limit'], r.headers['x-ratelimit-remaining']]

/** Sends GET /v1/pets until Redis is down for it too: 20 answers of 200 (20 … 1 left, as 19 … 0), then 429. */
async function assertLimitedPerInstance(get: (url: string) => Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }>) {
  for (let i = 1; i <= 20; i++) {
    const r = await get('/v1/pets')
    assert.equal(r.statusCode, 200, `request ${i} while Redis is down`)
    assert.deepEqual(limitOf(r), ['20', String(20 - i)], `request ${i}: the per-instance limit is 60 ÷ 3`)
  }
  const refused = await get('/v1/pets')
  assert.equal(refused.statusCode, 429)
  assert.equal(errorOf(refused).code, 'rate_limit_exceeded')
  assert.match(errorOf(refused).message, /20 requests per minute/)
  assert.ok(Number(refused.headers['retry-after']) >= 1)
}

test('Redis goes down: 200s at 20 a minute (60 ÷ 3), then 429; /readyz names Redis; it comes back: 60 again', async (t) => {
  if (postgresOnly(t)) return
  const printed = captureConsoleErrors(t)
  const redis = await redisServer(t)
  await redis.start()
  const { get, count } = await startApp(t, redis)

  const first = await get('/v1/pets')
  assert.equal(first.statusCode, 200)
  assert.deepEqual(limitOf(first), ['60', '59'])
  assert.deepEqual((await get('/readyz')).json(), { status: 'ready', checks: { database: 'ok', redis: 'ok' } })

  await redis.stop()
  await assertLimitedPerInstance(get)
  const notReady = await get('/readyz')
  assert.equal(notReady.statusCode, 503)
  assert.equal(errorOf(notReady).code, 'service_unavailable')
  assert.match(errorOf(notReady).message, /redis/)
  assert.doesNotMatch(errorOf(notReady).message, /database/, 'the database is fine')
  assert.equal((await get('/healthz')).statusCode, 200, 'the process is alive')
  assert.equal(count(OUTAGE), 1, 'one warning for the whole outage')

  await redis.start()
  await pollUntil('/readyz ready again', async () => ((await get('/readyz')).statusCode === 200 ? true : undefined))
  const back = await get('/v1/pets')
  assert.equal(back.statusCode, 200)
  assert.deepEqual(limitOf(back), ['60', '59'], 'the shared quota again (a restarted Redis starts empty)')
  assert.equal(count(RECOVERY), 1)
  assert.equal(count(OUTAGE), 1)
  assert.deepEqual(printed.filter((line) => /ioredis|ECONNREFUSED|ECONNRESET/.test(line)), [], 'reported in the log only')
})

test('Redis not there at start: the app starts and serves at 20 a minute, warns once, and uses Redis once it is up', async (t) => {
  if (postgresOnly(t)) return
  const printed = captureConsoleErrors(t)
  const redis = await redisServer(t)
  const { get, count } = await within(startApp(t, redis), 'starting the app without Redis')

  await assertLimitedPerInstance(get)
  assert.equal((await get('/readyz')).statusCode, 503)
  assert.equal(count(OUTAGE), 1, 'one warning for the outage, at start or on the first request, not both')

  await redis.start()
  await pollUntil('/readyz ready', async () => ((await get('/readyz')).statusCode === 200 ? true : undefined))
  const shared = await get('/v1/pets')
  assert.equal(shared.statusCode, 200)
  assert.deepEqual(limitOf(shared), ['60', '59'])
  assert.equal(count(RECOVERY), 1)
  assert.deepEqual(printed.filter((line) => /ioredis|ECONNREFUSED/.test(line)), [], 'reported in the log only')
})
