// PostgreSQL outages, with a TCP proxy between the app and the real PostgreSQL: while the database is
// unreachable, requests that need it get a prompt 503 `service_unavailable` with Retry-After (never a hang),
// nothing is half-written, /readyz says the database is down, and the app recovers by itself when the
// database is back. Runs in the PostgreSQL + Redis pass.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { keyEnvironment } from '../../src/modules/accounts/api-keys.js'
import { appWithServices } from '../helpers/app-with-services.js'
import { createManualClock } from '../../src/kernel/clock.js'
import { loadConfig } from '../../src/kernel/config.js'
import { openDatabase } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import { postgresOnly, postgresSchema, redisStore } from '../helpers/backend.js'
import { bearer, errorOf } from '../helpers/harness.js'
import { tcpProxy } from '../helpers/tcp-proxy.js'
import { pollUntil, within } from '../helpers/within.js'
import { testActor } from '../helpers/actors.js'

type After = { after: (fn: () => Promise<void>) => void }

/** The app on a fresh schema, reaching PostgreSQL only through a proxy the test controls. */
async function appBehindProxy(t: After, env: Record<string, string> = {}, options: { groupWrites?: boolean } = {}) {
  const admin = new URL(process.env.TEST_DATABASE_URL!)
  const proxy = await tcpProxy(t, { host: admin.hostname, port: Number(admin.port || 5432) })
  await proxy.start()
  const url = new URL(await postgresSchema(t))
  url.port = String(proxy.port)
  const config = loadConfig(
    { LOG_LEVEL: 'silent', ...env },
    { databaseUrl: url.toString(), redisUrl: process.env.TEST_REDIS_URL },
  )
  const handle = openDatabase(url.toString(), {
    poolSize: 4,
    timeoutMs: config.databaseTimeoutMs,
    // Without grouped writes (and pipelined reads) every statement goes through the pool.
    ...(options.groupWrites === false ? { pipelinedConnections: 0 } : {}),
  })
  await migrateToLatest(handle.db)
  const rateLimitStore = await redisStore(t)
  const { app, services } = await appWithServices({
    config,
    db: handle.db,
    pool: handle.pool,
    reads: handle.reads,
    engine: handle.engine,
    clock: createManualClock(new Date('2027-01-01T00:00:00Z')),
    rateLimitStore,
    logger: false,
  })
  t.after(async () => {
    await app.close()
    await services.close()
    await rateLimitStore.close()
    await handle.close()
  })
  const account = await services.accounts.createAccount({ actor: testActor, name: 'outage', plan: 'business' })
  const { key } = await services.accounts.createApiKey({
    actor: testActor,
    accountId: account.id,
    environment: keyEnvironment(config.environment),
  })
  const send = (method: 'GET' | 'POST', url: string, body?: object, headers: Record<string, string> = {}) =>
    within(
      app.inject({ method, url, headers: { ...bearer(key), ...headers }, ...(body ? { payload: body } : {}) }),
      `${method} ${url}`,
    )
  /** Like `send`, and how long the answer took (ms). */
  const timed = async (method: 'GET' | 'POST', url: string, body?: object) => {
    const started = performance.now()
    const response = await send(method, url, body)
    return { response, ms: performance.now() - started }
  }
  const names = async () => {
    const list = await send('GET', '/v1/pets')
    assert.equal(list.statusCode, 200)
    return list.json<{ name: string }[]>().map((p) => p.name)
  }
  return { app, services, proxy, send, timed, names, key }
}

function assertUnavailable(
  response: { statusCode: number; headers: Record<string, unknown>; body: string },
  what: string,
) {
  assert.equal(response.statusCode, 503, `${what}: ${response.body}`)
  assert.equal(errorOf(response).code, 'service_unavailable', what)
  assert.match(String(response.headers['retry-after']), /^[1-9]\d*$/, `${what}: Retry-After in whole seconds`)
}

test(
  'database unreachable: prompt 503 with Retry-After, ' + 'nothing created; back: served again without a restart',
  async (t) => {
    if (postgresOnly(t)) return
    const { proxy, send, names } = await appBehindProxy(t)
    assert.equal((await send('POST', '/v1/pets', { name: 'Before', categoryId: 1 })).statusCode, 201)
    assert.deepEqual(await names(), ['Before'])
    assert.deepEqual((await send('GET', '/readyz')).json(), {
      status: 'ready',
      checks: { database: 'ok', redis: 'ok' },
    })

    await proxy.stop()
    for (let i = 0; i < 3; i++) assertUnavailable(await send('GET', '/v1/pets'), `GET /v1/pets #${i + 1}`)
    assertUnavailable(await send('GET', '/v1/pets/1'), 'GET /v1/pets/1')
    assertUnavailable(await send('POST', '/v1/pets', { name: 'During', categoryId: 2 }), 'POST /v1/pets')
    assertUnavailable(
      await send('POST', '/v1/pets', { name: 'Keyed', categoryId: 3 }, { 'idempotency-key': '"k-1"' }),
      'POST with Idempotency-Key',
    )
    const notReady = await send('GET', '/readyz')
    assertUnavailable(notReady, '/readyz')
    assert.match(errorOf(notReady).message, /database/)
    assert.doesNotMatch(errorOf(notReady).message, /redis/, 'Redis is fine')
    assert.equal((await send('GET', '/healthz')).statusCode, 200, 'the process itself is alive')

    await proxy.start()
    assert.deepEqual(await names(), ['Before'], 'the POSTs that got 503 created nothing')
    const retried = await send('POST', '/v1/pets', { name: 'Keyed', categoryId: 3 }, { 'idempotency-key': '"k-1"' })
    assert.equal(retried.statusCode, 201, 'a 503 does not use up its Idempotency-Key')
    assert.equal(retried.headers['idempotent-replayed'], undefined)
    assert.deepEqual(await names(), ['Before', 'Keyed'])
    assert.deepEqual((await send('GET', '/readyz')).json(), {
      status: 'ready',
      checks: { database: 'ok', redis: 'ok' },
    })
  },
)

test(
  'the connection is lost as the INSERT is sent (through the pool): ' +
    '503, nothing committed, and the next request is served',
  async (t) => {
    if (postgresOnly(t)) return
    const { proxy, send, names } = await appBehindProxy(t, {}, { groupWrites: false })
    assert.equal((await send('POST', '/v1/pets', { name: 'Before', categoryId: 1 })).statusCode, 201)
    proxy.cutWhen(/insert into "pets"/i)
    assertUnavailable(
      await send('POST', '/v1/pets', { name: 'Lost', categoryId: 2 }, { 'idempotency-key': '"k-2"' }),
      'POST cut at its INSERT',
    )
    assert.equal(proxy.cuts(), 1)
    proxy.cutWhen(undefined)
    assert.deepEqual(await names(), ['Before'])
    const retried = await send('POST', '/v1/pets', { name: 'Lost', categoryId: 2 }, { 'idempotency-key': '"k-2"' })
    assert.equal(retried.statusCode, 201, 'the retry with the same key runs')
    assert.deepEqual(await names(), ['Before', 'Lost'])
  },
)

test(
  "a commit group's connection is lost as its INSERT is sent: the request runs again alone on the pool, " +
    'is cut there too: 503, nothing committed; the retry makes one pet',
  async (t) => {
    if (postgresOnly(t)) return
    const { proxy, send, names } = await appBehindProxy(t)
    // No pet was inserted before: each connection sends the INSERT's text the first time it runs it (later, only
    // the prepared statement's name), so both the group's connection and the pool's are cut at it.
    proxy.cutWhen(/insert into "pets"/i)
    assertUnavailable(
      await send('POST', '/v1/pets', { name: 'Lost', categoryId: 2 }, { 'idempotency-key': '"k-2"' }),
      'POST cut in its group, then alone on the pool',
    )
    assert.ok(proxy.cuts() >= 2, `cut on the group's connection and on the pool's (${proxy.cuts()})`)
    proxy.cutWhen(undefined)
    assert.deepEqual(await names(), [], 'nothing committed')
    const retried = await send('POST', '/v1/pets', { name: 'Lost', categoryId: 2 }, { 'idempotency-key': '"k-2"' })
    assert.equal(retried.statusCode, 201, retried.body)
    const replayed = await send('POST', '/v1/pets', { name: 'Lost', categoryId: 2 }, { 'idempotency-key': '"k-2"' })
    assert.equal(replayed.headers['idempotent-replayed'], 'true')
    assert.deepEqual(await names(), ['Lost'], 'one pet')
  },
)

test('a database that accepts connections but never answers: 503 after the connect timeout, not a hang', async (t) => {
  if (postgresOnly(t)) return
  const { proxy, send, names } = await appBehindProxy(t)
  assert.deepEqual(await names(), [])
  await proxy.stop()
  await proxy.start('blackhole')
  assertUnavailable(await send('GET', '/v1/pets'), 'GET /v1/pets')
  assertUnavailable(await send('POST', '/v1/pets', { name: 'Hung', categoryId: 1 }), 'POST /v1/pets')
  const notReady = await send('GET', '/readyz')
  assertUnavailable(notReady, '/readyz')
  assert.match(errorOf(notReady).message, /database/)

  await proxy.stop()
  await proxy.start()
  assert.deepEqual(await names(), [], 'nothing was created')
  assert.equal((await send('POST', '/v1/pets', { name: 'After', categoryId: 1 })).statusCode, 201)
})

test(
  'database unreachable: a well-formed key gets 503 every time, never 429: ' +
    'failed look-ups do not count against the address',
  async (t) => {
    if (postgresOnly(t)) return
    const { app, services, proxy, names, key } = await appBehindProxy(t, { RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '3' })
    assert.deepEqual(await names(), [])
    // A key not used before the outage, so that no server has its look-up in memory (see key-cache.ts): its look-up
    // must reach the database, and fails.
    const account = await services.accounts.createAccount({
      actor: testActor,
      name: 'outage, unseen key',
      plan: 'business',
    })
    const unseen = await services.accounts.createApiKey({
      actor: testActor,
      accountId: account.id,
      environment: keyEnvironment(services.config.environment),
    })
    await proxy.stop()
    for (let i = 1; i <= 10; i++) {
      const started = performance.now()
      const response = await within(app.inject({ url: '/v1/pets', headers: bearer(unseen.key) }), `GET /v1/pets #${i}`)
      const ms = performance.now() - started
      assertUnavailable(response, `GET /v1/pets #${i} (the address allows 3 requests without a valid key a minute)`)
      assert.deepEqual(
        [response.headers['x-ratelimit-limit'], response.headers['x-ratelimit-remaining']],
        ['3', '3'],
        "the address's quota, untouched",
      )
      // Refused at connect: well within the connect timeout (2 s), whatever the machine's load.
      assert.ok(ms < 2_500, `#${i} took ${Math.round(ms)} ms`)
    }
    await proxy.start()
    assert.deepEqual(await names(), [], 'the key works again at once')
    const unknown = await app.inject({ url: '/v1/pets', headers: bearer(`${key.slice(0, -4)}AAAA`) })
    assert.equal(unknown.statusCode, 401)
    assert.equal(unknown.headers['x-ratelimit-remaining'], '2', "the address's quota was untouched by the outage")
  },
)

test(
  'a silent partition (the relay stops forwarding, nothing is closed): ' +
    '503 within the statement timeout, then served again',
  async (t) => {
    if (postgresOnly(t)) return
    const { proxy, send, timed, names } = await appBehindProxy(t, { DATABASE_TIMEOUT_MS: '1000' })
    // Warm the pool: the partition hits connections that are open and idle, as in production.
    await Promise.all([names(), names(), names()])
    proxy.stall(true)
    const took: number[] = []
    for (let i = 1; i <= 3; i++) {
      const { response, ms } = await timed(
        i === 2 ? 'POST' : 'GET',
        '/v1/pets',
        i === 2 ? { name: 'Partitioned', categoryId: 1 } : undefined,
      )
      took.push(Math.round(ms))
      assertUnavailable(response, `request #${i} during the partition`)
      // DATABASE_TIMEOUT_MS (1 s) + the client's 500 ms margin, or the 2 s connect timeout for a new connection.
      assert.ok(ms >= 900 && ms < 3_500, `#${i}: answered after ${Math.round(ms)} ms`)
    }
    t.diagnostic(`503 during the partition after ${took.join(', ')} ms`)
    const notReady = await send('GET', '/readyz')
    assertUnavailable(notReady, '/readyz during the partition')
    assert.match(errorOf(notReady).message, /database/)

    proxy.stall(false)
    await pollUntil('served again after the partition', async () =>
      (await send('GET', '/v1/pets')).statusCode === 200 ? true : undefined,
    )
    assert.deepEqual(await names(), [], 'the POST that got 503 created nothing')
    assert.equal((await send('POST', '/v1/pets', { name: 'After', categoryId: 1 })).statusCode, 201)
  },
)
