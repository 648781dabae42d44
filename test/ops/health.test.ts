// Liveness and readiness, on both listeners: outside /v1, no key needed, no rate limits carried or consumed.
// /readyz reports the database (`ok`, else a 503) and Redis (`ok`, `degraded`, `off`) and nothing more: no host,
// port or driver message, also when PostgreSQL is cut off (a relay the test stops) or Redis is killed.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { keyEnvironment } from '../../src/modules/accounts/api-keys.js'
import { appWithServices } from '../helpers/app-with-services.js'
import { createManualClock } from '../../src/kernel/clock.js'
import { loadConfig } from '../../src/kernel/config.js'
import { openDatabase } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import { createRateLimitStore } from '../../src/modules/limits/store-from-config.js'
import { testActor } from '../helpers/actors.js'
import { backend, freshRedisPrefix, postgresOnly, postgresSchema, testBackend } from '../helpers/backend.js'
import { captureLog } from '../helpers/capture-log.js'
import { bearer, errorOf, startHarness } from '../helpers/harness.js'
import { startMessagesHarness } from '../helpers/messages-harness.js'
import { redisServer } from '../helpers/redis-server.js'
import { tcpProxy } from '../helpers/tcp-proxy.js'
import { pollUntil, within } from '../helpers/within.js'

const READY = { status: 'ready', checks: { database: 'ok', redis: backend === 'postgres' ? 'ok' : 'off' } }
const NOT_READY = { code: 'service_unavailable', message: 'Not ready: database unavailable.', status: 503 }
const RATE_LIMIT_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit',
  'ratelimit-policy',
  'retry-after',
]

function assertNoRateLimitHeaders(response: { headers: Record<string, unknown> }, what: string) {
  for (const name of RATE_LIMIT_HEADERS) assert.equal(response.headers[name], undefined, `${what} carries ${name}`)
}

test(
  '/healthz is 200 {status: ' + '"ok"} and /readyz is 200 with every check ok, without a key, on both listeners',
  async (t) => {
    const h = await startMessagesHarness(t, { pets: true })
    for (const [name, app] of [
      ['pets', h.pets!],
      ['messages', h.app],
    ] as const) {
      const health = await app.inject({ url: '/healthz' })
      assert.equal(health.statusCode, 200, `${name} /healthz`)
      assert.deepEqual(health.json(), { status: 'ok' })
      assert.match(String(health.headers['content-type']), /^application\/json/)
      const ready = await app.inject({ url: '/readyz' })
      assert.equal(ready.statusCode, 200, `${name} /readyz: ${ready.body}`)
      assert.deepEqual(ready.json(), READY)
    }
  },
)

test('/healthz and /readyz carry no rate-limit headers and consume no quota, whatever key is sent', async (t) => {
  const h = await startHarness(t, { config: { unauthenticatedPerMinute: 2 } })
  const { key } = await h.newAccount()
  const senders = [{}, bearer(key), bearer('ps_test_not-a-real-key'), { authorization: 'Basic Zm9vOmJhcg==' }]
  for (let i = 0; i < 5; i++) {
    for (const headers of senders) {
      for (const url of ['/healthz', '/readyz']) {
        const response = await h.app.inject({ url, headers })
        assert.equal(response.statusCode, 200, `${url} #${i + 1} with ${JSON.stringify(headers)}`)
        assertNoRateLimitHeaders(response, url)
      }
    }
  }
  const unknown = await h.app.inject({ url: '/nowhere' })
  assert.equal(unknown.statusCode, 404)
  assert.equal(
    unknown.headers['x-ratelimit-remaining'],
    '1',
    'the address quota (2) is untouched: this is its first request',
  )
  const pets = await h.app.inject({ url: '/v1/pets', headers: bearer(key) })
  assert.equal(pets.statusCode, 200)
  assert.equal(pets.headers['x-ratelimit-remaining'], '59', "the account's quota is untouched")
})

test('/healthz and /readyz answer while the address and the account are rate limited', async (t) => {
  const h = await startHarness(t, { config: { unauthenticatedPerMinute: 1 } })
  const { key } = await h.newAccount({ plan: 'enterprise', perMinute: 1, perDay: 10 })
  await h.app.inject({ url: '/nowhere' })
  assert.equal((await h.app.inject({ url: '/nowhere' })).statusCode, 429)
  await h.app.inject({ url: '/v1/pets', headers: bearer(key) })
  assert.equal((await h.app.inject({ url: '/v1/pets', headers: bearer(key) })).statusCode, 429)
  for (const headers of [{}, bearer(key)]) {
    assert.equal((await h.app.inject({ url: '/healthz', headers })).statusCode, 200)
    assert.equal((await h.app.inject({ url: '/readyz', headers })).statusCode, 200)
  }
})

test(
  '/readyz is 503 service_unavailable naming the database ' +
    'when it cannot answer, and nothing more; /healthz stays 200',
  async (t) => {
    const h = await startHarness(t)
    await h.handle.close()
    const ready = await h.app.inject({ url: '/readyz' })
    assert.equal(ready.statusCode, 503)
    assert.deepEqual(errorOf(ready), NOT_READY)
    assert.match(String(ready.headers['retry-after']), /^[1-9]\d*$/)
    assert.equal((await h.app.inject({ url: '/healthz' })).statusCode, 200)
  },
)

test(
  'PostgreSQL cut off (the relay stops): ' +
    '/readyz 503 with the error body only, no host, port or driver text; back: 200',
  async (t) => {
    if (postgresOnly(t)) return
    const upstream = new URL(process.env.TEST_DATABASE_URL!)
    const proxy = await tcpProxy(t, { host: upstream.hostname, port: Number(upstream.port || 5432) })
    await proxy.start()
    const url = new URL(await postgresSchema(t))
    url.port = String(proxy.port)
    const config = loadConfig({ LOG_LEVEL: 'silent' }, { databaseUrl: url.toString() })
    const handle = openDatabase(url.toString(), { poolSize: 2, timeoutMs: config.databaseTimeoutMs })
    await migrateToLatest(handle.db)
    const { app, services } = await appWithServices({ config, db: handle.db, pool: handle.pool, logger: false })
    t.after(async () => {
      await app.close()
      await services.close()
      await handle.close()
    })
    const readyz = () => within(app.inject({ url: '/readyz' }), 'GET /readyz')
    assert.deepEqual((await readyz()).json(), { status: 'ready', checks: { database: 'ok', redis: 'off' } })

    await proxy.stop()
    const down = await readyz()
    assert.equal(down.statusCode, 503, down.body)
    assert.deepEqual(JSON.parse(down.body), NOT_READY, 'exactly the error fields')
    assert.match(String(down.headers['retry-after']), /^[1-9]\d*$/)
    for (const leak of [
      upstream.hostname,
      '127.0.0.1',
      'localhost',
      String(proxy.port),
      String(upstream.port || 5432),
    ]) {
      assert.ok(!down.body.includes(leak), `the body names ${leak}: ${down.body}`)
    }
    assert.doesNotMatch(down.body, /ECONN|connect|refused|timeout|postgres|pg|socket|terminat/i, 'no driver text')
    const metrics = await app.inject({ url: '/metrics' })
    assert.equal(metrics.statusCode, 200, 'the scrape answers while the database does not')
    assert.match(
      metrics.body,
      /^petstore_messages_outbox_depth NaN$/im,
      'a figure it cannot read is NaN, not a stale or false 0',
    )

    await proxy.start()
    await pollUntil('/readyz 200 again', async () => ((await readyz()).statusCode === 200 ? true : undefined))
    assert.deepEqual((await readyz()).json(), { status: 'ready', checks: { database: 'ok', redis: 'off' } })
  },
)

test(
  '/readyz with Redis: ok; killed: 200 with redis degraded (the fallback limits); ' +
    'back: ok. Without REDIS_URL: off',
  async (t) => {
    const redis = await redisServer(t)
    await redis.start()
    const store = await testBackend(t)
    const config = loadConfig(
      { LOG_LEVEL: 'silent', REDIS_URL: redis.url, REDIS_PREFIX: freshRedisPrefix() },
      { databaseUrl: store.url },
    )
    const rateLimitStore = await createRateLimitStore(config, captureLog().log)
    const { app, services } = await appWithServices({
      config,
      db: store.handle.db,
      pool: store.handle.pool,
      clock: createManualClock(new Date('2027-01-01T00:00:30Z')),
      rateLimitStore,
      logger: false,
    })
    t.after(async () => {
      await app.close()
      await services.close()
      await rateLimitStore.close()
      await store.rateLimitStore?.close()
    })
    const account = await services.accounts.createAccount({ actor: testActor, name: 'readyz', plan: 'free' })
    const { key } = await services.accounts.createApiKey({
      actor: testActor,
      accountId: account.id,
      environment: keyEnvironment(config.environment),
    })
    const readyz = async () => {
      const r = await within(app.inject({ url: '/readyz' }), 'GET /readyz')
      assert.equal(r.statusCode, 200, r.body)
      return r.json()
    }
    const redisUp = async () => /^petstore_redis_up (\S+)$/m.exec((await app.inject({ url: '/metrics' })).body)?.[1]
    assert.deepEqual(await readyz(), { status: 'ready', checks: { database: 'ok', redis: 'ok' } })
    assert.equal(await redisUp(), '1')

    await redis.stop()
    assert.equal(
      (await app.inject({ url: '/v1/pets', headers: bearer(key) })).statusCode,
      200,
      'served by the fallback',
    )
    assert.deepEqual(await readyz(), { status: 'ready', checks: { database: 'ok', redis: 'degraded' } })
    assert.equal(await redisUp(), '0')

    await redis.start()
    await pollUntil('redis ok again', async () => ((await readyz()).checks.redis === 'ok' ? true : undefined))
    // The gauge reads the same state at its own scrape: wait for it too rather than for a turn of the reconnect.
    await pollUntil('petstore_redis_up 1 again', async () => ((await redisUp()) === '1' ? true : undefined))

    const without = await startHarness(t, { config: { redisUrl: undefined } })
    const off = await without.app.inject({ url: '/readyz' })
    assert.deepEqual(off.json(), { status: 'ready', checks: { database: 'ok', redis: 'off' } })
    assert.doesNotMatch(
      (await without.app.inject({ url: '/metrics' })).body,
      /petstore_redis_up/,
      'no Redis, no gauge of it',
    )
  },
)
