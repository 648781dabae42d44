// A Redis outage seen through HTTP, on an app built as the server builds it (REDIS_URL, the store from config)
// over a private redis-server: a free account keeps getting answers, limited per instance at 60 ÷ 3 = 20 a
// minute, /readyz stays 200 and says `redis: degraded` while it is down (only the database makes it 503), and the
// app uses Redis again when it returns, without a restart.
// Also when Redis is not there at start. Runs in the PostgreSQL + Redis pass.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { keyEnvironment } from '../../../src/modules/accounts/api-keys.js'
import { appWithServices } from '../../helpers/app-with-services.js'
import { createManualClock } from '../../../src/kernel/clock.js'
import { loadConfig } from '../../../src/kernel/config.js'
import { openDatabase } from '../../../src/db/database.js'
import { migrateToLatest } from '../../../src/db/migrate.js'
import { createRateLimitStore } from '../../../src/modules/limits/store-from-config.js'
import { freshRedisPrefix, postgresOnly, postgresSchema } from '../../helpers/backend.js'
import { captureConsoleErrors, captureLog, OUTAGE, RECOVERY } from '../../helpers/capture-log.js'
import { bearer, errorOf } from '../../helpers/harness.js'
import { redisServer, type RedisServer } from '../../helpers/redis-server.js'
import { createRedisClient } from '../../../src/modules/limits/redis.store.js'
import { pollUntil, within } from '../../helpers/within.js'
import { testActor } from '../../helpers/actors.js'

async function startApp(
  t: { after: (fn: () => Promise<void>) => void },
  redis: RedisServer,
  extraEnv: Record<string, string> = {},
  plan: { plan: 'free' } | { plan: 'enterprise'; perMinute: number; perDay: number } = { plan: 'free' },
) {
  const databaseUrl = await postgresSchema(t)
  const handle = openDatabase(databaseUrl, { poolSize: 2 })
  await migrateToLatest(handle.db)
  const env = {
    LOG_LEVEL: 'silent',
    REDIS_URL: redis.url,
    REDIS_PREFIX: freshRedisPrefix(),
    RATE_LIMIT_FALLBACK_DIVISOR: '3',
    ...extraEnv,
  }
  const config = loadConfig(env, { databaseUrl })
  const { log, count } = captureLog()
  const store = await createRateLimitStore(config, log)
  // Mid-minute, so that every request of the test falls in one minute window.
  const clock = createManualClock(new Date('2027-01-01T00:00:30Z'))
  const { app, services } = await appWithServices({
    config,
    db: handle.db,
    pool: handle.pool,
    engine: handle.engine,
    clock,
    rateLimitStore: store,
    logger: false,
  })
  t.after(async () => {
    await app.close()
    await services.close()
    await store.close()
    await handle.close()
  })
  const account = await services.accounts.createAccount({ actor: testActor, name: 'fallback', ...plan })
  const { key } = await services.accounts.createApiKey({
    actor: testActor,
    accountId: account.id,
    environment: keyEnvironment(config.environment),
  })
  const get = (url: string) => within(app.inject({ url, headers: bearer(key) }), `GET ${url}`)
  return { app, count, get, clock, config }
}

const limitOf = (r: { headers: Record<string, unknown> }) => [
  r.headers['x-ratelimit-limit'],
  r.headers['x-ratelimit-remaining'],
]

/**
 * Sends GET /v1/pets until Redis is down for it too: 20 a minute (60 ÷ 3) less the `admitted` ones this process
 * admitted earlier in the minute through Redis (it goes on counting from those), then 429.
 */
async function assertLimitedPerInstance(
  get: (url: string) => Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }>,
  admitted = 0,
) {
  for (let i = admitted + 1; i <= 20; i++) {
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

test(
  'Redis goes down: 200s up to 20 a minute (60 ÷ 3, counting the one it admitted before), then 429; ' +
    '/readyz 200 with redis degraded; it comes back: 60 again',
  async (t) => {
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
    await assertLimitedPerInstance(get, 1)
    const degraded = await get('/readyz')
    assert.equal(degraded.statusCode, 200, 'the fallback serves: no reason to leave the load balancer')
    assert.deepEqual(degraded.json(), { status: 'ready', checks: { database: 'ok', redis: 'degraded' } })
    assert.equal((await get('/healthz')).statusCode, 200, 'the process is alive')
    assert.equal(count(OUTAGE), 1, 'one warning for the whole outage')

    await redis.start()
    await pollUntil('/readyz: redis ok again', async () =>
      (await get('/readyz')).json().checks.redis === 'ok' ? true : undefined,
    )
    const back = await get('/v1/pets')
    assert.equal(back.statusCode, 200)
    assert.deepEqual(limitOf(back), ['60', '59'], 'the shared quota again (a restarted Redis starts empty)')
    assert.equal(count(RECOVERY), 1)
    assert.equal(count(OUTAGE), 1)
    assert.deepEqual(
      printed.filter((line) => /ioredis|ECONNREFUSED|ECONNRESET/.test(line)),
      [],
      'reported in the log only',
    )
  },
)

test(
  'Redis not there at start: the app starts and serves at ' + '20 a minute, warns once, and uses Redis once it is up',
  async (t) => {
    if (postgresOnly(t)) return
    const printed = captureConsoleErrors(t)
    const redis = await redisServer(t)
    const { get, count } = await within(startApp(t, redis), 'starting the app without Redis')

    await assertLimitedPerInstance(get)
    assert.deepEqual((await get('/readyz')).json(), { status: 'ready', checks: { database: 'ok', redis: 'degraded' } })
    assert.equal(count(OUTAGE), 1, 'one warning for the outage, at start or on the first request, not both')

    await redis.start()
    await pollUntil('/readyz: redis ok', async () =>
      (await get('/readyz')).json().checks.redis === 'ok' ? true : undefined,
    )
    const shared = await get('/v1/pets')
    assert.equal(shared.statusCode, 200)
    assert.deepEqual(limitOf(shared), ['60', '59'])
    assert.equal(count(RECOVERY), 1)
    assert.deepEqual(
      printed.filter((line) => /ioredis|ECONNREFUSED/.test(line)),
      [],
      'reported in the log only',
    )
  },
)

/** GET /v1/pets and how long it took, in ms. */
async function timedGet(get: (url: string) => Promise<{ statusCode: number; headers: Record<string, unknown> }>) {
  const started = performance.now()
  const response = await get('/v1/pets')
  return { response, ms: performance.now() - started }
}

test(
  'a Redis that stops answering (SIGSTOP, connections open): ' +
    'one request pays the 50 ms timeout, the rest go to the fallback at once',
  async (t) => {
    if (postgresOnly(t)) return
    const redis = await redisServer(t)
    await redis.start()
    const { get, count } = await startApp(t, redis)
    assert.deepEqual(limitOf(await get('/v1/pets')), ['60', '59'])

    redis.pause()
    t.after(async () => {
      try {
        redis.resume()
      } catch {}
    })
    const first = await timedGet(get)
    assert.equal(first.response.statusCode, 200)
    assert.deepEqual(
      limitOf(first.response),
      ['20', '18'],
      'served by the fallback, which counted the request Redis admitted',
    )
    assert.ok(
      first.ms < 200,
      `the request that found Redis hung took ${Math.round(first.ms)} ms (command timeout 50 ms)`,
    )
    const rest: number[] = []
    for (let i = 0; i < 15; i++) {
      const { response, ms } = await timedGet(get)
      assert.equal(response.statusCode, 200)
      rest.push(ms)
    }
    const total = rest.reduce((a, b) => a + b, 0)
    t.diagnostic(
      `the request that found Redis paused: ${Math.round(first.ms)} ms; the next 15: ${Math.round(total)} ms in all`,
    )
    // Paying the timeout on each would be 15 × 50 ms at least (750 ms; 15 × 250 ms before the breaker).
    assert.ok(total < 400, `15 more requests took ${Math.round(total)} ms in all: ${rest.map(Math.round).join(', ')}`)
    assert.deepEqual((await get('/readyz')).json(), { status: 'ready', checks: { database: 'ok', redis: 'degraded' } })
    assert.equal(count(OUTAGE), 1)

    redis.resume()
    await pollUntil('back on Redis', async () =>
      (await get('/readyz')).json().checks.redis === 'ok' ? true : undefined,
    )
    assert.equal((await get('/v1/pets')).headers['x-ratelimit-limit'], '60', 'the shared quota again')
    assert.equal(count(RECOVERY), 1)
  },
)

test(
  'a ban survives a Redis outage (the fallback knows it) and a ' +
    'Redis restart that lost everything (written back with its expiry)',
  async (t) => {
    if (postgresOnly(t)) return
    const redis = await redisServer(t)
    await redis.start()
    const { get, clock } = await startApp(
      t,
      redis,
      { RATE_LIMIT_BAN_THRESHOLD: '2', RATE_LIMIT_BAN_SECONDS: '900' },
      { plan: 'enterprise', perMinute: 1, perDay: 100 },
    )
    assert.equal((await get('/v1/pets')).statusCode, 200)
    const codes = []
    for (let i = 0; i < 4; i++) codes.push(errorOf(await get('/v1/pets')).code)
    assert.deepEqual(codes, ['rate_limit_exceeded', 'rate_limit_exceeded', 'temporarily_banned', 'temporarily_banned'])

    await redis.stop()
    clock.advance(60_000) // a new minute: without the ban the key would be admitted again
    const during = await get('/v1/pets')
    assert.equal(errorOf(during).code, 'temporarily_banned', 'the fallback knows the ban Redis reported')
    assert.equal(during.headers['retry-after'], '840')

    await redis.start() // empty: a restart without persistence
    await pollUntil('back on Redis', async () =>
      (await get('/readyz')).json().checks.redis === 'ok' ? true : undefined,
    )
    const after = await get('/v1/pets')
    assert.equal(errorOf(after).code, 'temporarily_banned', 'the ban was written back to the restarted Redis')
    assert.equal(after.headers['retry-after'], '840')
    const client = createRedisClient({ url: redis.url, prefix: '', commandTimeoutMs: 2_000 })
    await client.connect()
    t.after(async () => client.disconnect())
    const keys = await client.keys('*ban:key:*')
    assert.equal(keys.length, 1)
    const ttl = await client.pttl(keys[0]!)
    assert.ok(ttl > 839_000 && ttl <= 840_000, `written with its remaining time: PTTL ${ttl}`)
  },
)

test(
  'RATE_LIMIT_FALLBACK_DIVISOR is shared by the worker processes of an instance: ' + '60 ÷ 3 ÷ 2 workers = 10 each',
  async (t) => {
    if (postgresOnly(t)) return
    const redis = await redisServer(t)
    const { get } = await startApp(t, redis, { PETSTORE_WORKERS: '2' })
    const answers = []
    for (let i = 0; i < 12; i++) answers.push(await get('/v1/pets'))
    assert.deepEqual(
      answers.map((r) => r.statusCode),
      [...Array(10).fill(200), 429, 429],
    )
    assert.deepEqual(limitOf(answers[0]!), ['10', '9'])
  },
)
