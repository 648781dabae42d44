// GET /metrics: Prometheus text with requests by route pattern and status, rate-limit refusals (by reason and
// subject; by limit and plan) and bans, build and worker start, portal sign-ups and log-ins, message delivery
// failures, the outbox and accounts by plan read at scrape, process metrics and (PostgreSQL) pool use; guarded
// by METRICS_TOKEN, or answered on loopback only. Each series is read through HTTP after doing the thing.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import pino from 'pino'
import { createWebhookSink, type MessageSink } from '../../src/modules/messages/sinks.js'
import { packageInfo } from '../../src/kernel/version.js'
import { testActor } from '../helpers/actors.js'
import { backend } from '../helpers/backend.js'
import { bearer, errorOf, startHarness, type Harness } from '../helpers/harness.js'
import { startMessagesHarness, type MessagesHarness } from '../helpers/messages-harness.js'
import { client, GOOD_PASSWORD, portalHarness, signedUpUser } from '../helpers/portal.js'
import { parseMetrics, type Sample } from '../helpers/prometheus.js'
import { addEndpoint } from '../helpers/webhooks.js'
import { pollUntil } from '../helpers/within.js'

const REMOTE = '10.0.0.1'

/** The value of the one sample with exactly these labels; undefined if there is none. */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const matching = samples.filter(
    (s) =>
      s.name === name &&
      JSON.stringify(Object.entries(s.labels).sort()) === JSON.stringify(Object.entries(labels).sort()),
  )
  assert.ok(matching.length <= 1, `${matching.length} samples of ${name} ${JSON.stringify(labels)}`)
  return matching[0]?.value
}

async function scrape(h: Pick<Harness, 'app'>, headers: Record<string, string> = {}): Promise<Sample[]> {
  const response = await h.app.inject({ url: '/metrics', headers })
  assert.equal(response.statusCode, 200, response.body)
  assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/)
  assert.match(response.body, /^# HELP petstore_http_request_duration_seconds /m)
  assert.match(response.body, /^# TYPE petstore_http_request_duration_seconds histogram$/m)
  return parseMetrics(response.body)
}

const requests = (route: string, status: number, method = 'GET') => ({
  listener: 'pets',
  method,
  route,
  status: String(status),
})

test(
  '/metrics from loopback: request counts and latency ' + 'by route pattern and status, process and pool metrics',
  async (t) => {
    const h = await startHarness(t)
    const { key } = await h.newAccount()
    for (let i = 0; i < 3; i++)
      assert.equal((await h.app.inject({ url: '/v1/pets', headers: bearer(key) })).statusCode, 200)
    assert.equal(
      (
        await h.app.inject({
          method: 'POST',
          url: '/v1/pets',
          headers: bearer(key),
          payload: { name: 'Rex', categoryId: 1 },
        })
      ).statusCode,
      201,
    )
    assert.equal((await h.app.inject({ url: '/v1/pets/987654321', headers: bearer(key) })).statusCode, 404)
    assert.equal((await h.app.inject({ url: '/v1/pets' })).statusCode, 401)
    assert.equal((await h.app.inject({ url: '/no/such/path/12345' })).statusCode, 404)

    const samples = await scrape(h)
    const count = (labels: Record<string, string>) =>
      valueOf(samples, 'petstore_http_request_duration_seconds_count', labels)
    assert.equal(count(requests('/v1/pets', 200)), 3)
    assert.equal(count(requests('/v1/pets', 201, 'POST')), 1)
    assert.equal(count(requests('/v1/pets/:petId', 404)), 1)
    assert.equal(count(requests('/v1/pets', 401)), 1)
    assert.equal(
      valueOf(samples, 'petstore_http_request_duration_seconds_bucket', { ...requests('/v1/pets', 200), le: '+Inf' }),
      3,
    )
    assert.ok((valueOf(samples, 'petstore_http_request_duration_seconds_sum', requests('/v1/pets', 200)) ?? -1) >= 0)
    const labelValues = samples.flatMap((s) => Object.values(s.labels))
    assert.ok(
      !labelValues.some((v) => /987654321|12345/.test(v)),
      'raw paths never become label values (one series per route pattern)',
    )
    // prom-client's process and Node.js metrics under their standard names, as stock dashboards query them.
    for (const standard of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
    ])
      assert.ok(valueOf(samples, standard) !== undefined, standard)
    assert.ok(!samples.some((s) => /^petstore_(process|nodejs)_/.test(s.name)), 'no petstore_-prefixed default metric')
    const pool = valueOf(samples, 'petstore_db_pool_connections')
    if (backend === 'postgres') assert.ok(pool !== undefined && pool >= 1, `pool connections: ${pool}`)
    else assert.equal(pool, undefined, 'no pool on SQLite')
    // The page and pet reads above went over the pipelined connections.
    const pipelined = valueOf(samples, 'petstore_db_pipelined_connections')
    if (backend === 'postgres')
      assert.ok(pipelined !== undefined && pipelined >= 1, `pipelined connections: ${pipelined}`)
    else assert.equal(pipelined, undefined, 'no pipelined connections on SQLite')
  },
)

test('/metrics counts 429 refusals by reason and subject, and bans when they start', async (t) => {
  const h = await startHarness(t, { config: { banThreshold: 2, unauthenticatedPerMinute: 1 } })
  const { key } = await h.newAccount({ plan: 'enterprise', perMinute: 1, perDay: 100 })
  const before = await scrape(h)
  assert.equal(valueOf(before, 'petstore_rate_limit_bans_total'), 0)
  assert.equal(
    valueOf(before, 'petstore_rate_limit_refusals_total', { reason: 'rate_limit_exceeded', subject: 'account' }),
    undefined,
  )

  const codes: string[] = []
  for (let i = 0; i < 6; i++) {
    const r = await h.app.inject({ url: '/v1/pets', headers: bearer(key) })
    codes.push(r.statusCode === 200 ? 'ok' : errorOf(r).code)
  }
  assert.deepEqual(codes, [
    'ok',
    'rate_limit_exceeded',
    'rate_limit_exceeded',
    'temporarily_banned',
    'temporarily_banned',
    'temporarily_banned',
  ])
  assert.equal((await h.app.inject({ url: '/v1/pets' })).statusCode, 401)
  assert.equal((await h.app.inject({ url: '/v1/pets' })).statusCode, 429)

  const after = await scrape(h)
  assert.equal(
    valueOf(after, 'petstore_rate_limit_refusals_total', { reason: 'rate_limit_exceeded', subject: 'account' }),
    2,
  )
  assert.equal(
    valueOf(after, 'petstore_rate_limit_refusals_total', { reason: 'temporarily_banned', subject: 'account' }),
    3,
  )
  assert.equal(
    valueOf(after, 'petstore_rate_limit_refusals_total', { reason: 'rate_limit_exceeded', subject: 'address' }),
    1,
  )
  assert.equal(valueOf(after, 'petstore_rate_limit_bans_total'), 1, 'one ban started, however many requests it refused')
  assert.equal(valueOf(after, 'petstore_http_request_duration_seconds_count', requests('/v1/pets', 429)), 6)
  // The same refusals by what refused them and the account's plan.
  assert.equal(valueOf(after, 'petstore_requests_refused_total', { limit: 'minute', plan: 'enterprise' }), 2)
  assert.equal(valueOf(after, 'petstore_requests_refused_total', { limit: 'ban', plan: 'enterprise' }), 3)
  assert.equal(valueOf(after, 'petstore_requests_refused_total', { limit: 'address', plan: 'none' }), 1)
})

test(
  '/metrics counts refusals by limit and plan: ' + 'a free account past its minute, an enterprise account past its day',
  async (t) => {
    const h = await startHarness(t)
    const free = await h.newAccount({ plan: 'free' })
    const daily = await h.newAccount({ plan: 'enterprise', perMinute: 100, perDay: 2 })
    const statuses = async (key: string, n: number) => {
      const seen: number[] = []
      for (let i = 0; i < n; i++) seen.push((await h.app.inject({ url: '/v1/pets', headers: bearer(key) })).statusCode)
      return seen
    }
    assert.deepEqual(await statuses(free.key, 61), [...Array(60).fill(200), 429])
    assert.deepEqual(await statuses(daily.key, 3), [200, 200, 429])
    const samples = await scrape(h)
    const refused = samples.filter((s) => s.name === 'petstore_requests_refused_total')
    assert.deepEqual(refused.map((s) => [s.labels.limit, s.labels.plan, s.value]).sort(), [
      ['day', 'enterprise', 1],
      ['minute', 'free', 1],
    ])
  },
)

test("/metrics: build info (version, revision, Node.js) and this process's start time as worker 0", async (t) => {
  const h = await startHarness(t)
  const before = Date.now() / 1000
  const samples = await scrape(h)
  // In-process the app runs from sources, which no build stamped: the revision is `unknown` (the built program's is
  // checked in metrics-workers.test.ts).
  const info = { version: packageInfo().version, revision: 'unknown', node: process.version }
  assert.equal(valueOf(samples, 'petstore_build_info', info), 1)
  assert.equal(samples.filter((s) => s.name === 'petstore_build_info').length, 1)
  const started = valueOf(samples, 'petstore_worker_start_time_seconds', { worker: '0' })
  assert.ok(
    started !== undefined && started <= before && started >= before - process.uptime() - 1,
    `start time ${started}, now ${before}, up ${process.uptime()} s`,
  )
})

test(
  '/metrics counts portal sign-ups (new accounts only), ' +
    'log-ins and failed log-ins; accounts by plan, deleted ones left out',
  async (t) => {
    const h = await portalHarness(t)
    const before = await scrape(h)
    for (const name of [
      'petstore_portal_signups_total',
      'petstore_portal_logins_total',
      'petstore_portal_login_failures_total',
    ])
      assert.equal(valueOf(before, name), 0, name)
    assert.deepEqual(
      before.filter((s) => s.name === 'petstore_accounts').map((s) => [s.labels.plan, s.value]),
      [
        ['free', 0],
        ['pro', 0],
        ['business', 0],
        ['enterprise', 0],
      ],
    )

    await signedUpUser(h, 'ada@example.com') // sign-up, verification, log-in
    const again = client(h.app)
    await again.get('/portal/signup')
    assert.equal(
      (await again.post('/portal/signup', { email: 'ada@example.com', password: GOOD_PASSWORD })).statusCode,
      200,
    )
    await h.services.portal?.mailer.settled()
    await again.get('/portal/login')
    assert.equal(
      (await again.post('/portal/login', { email: 'ada@example.com', password: 'not the password at all' })).statusCode,
      400,
    )
    assert.equal(
      (await again.post('/portal/login', { email: 'nobody@example.com', password: GOOD_PASSWORD })).statusCode,
      400,
    )
    await h.newAccount({ plan: 'pro' })
    await h.newAccount({ plan: 'enterprise', perMinute: 10, perDay: 100 })
    const gone = await h.newAccount({ plan: 'pro' })
    await h.services.accounts.deleteAccount(gone.accountId, { actor: testActor })

    const after = await scrape(h)
    assert.equal(valueOf(after, 'petstore_portal_signups_total'), 1, 'the repeated address created no account')
    assert.equal(valueOf(after, 'petstore_portal_logins_total'), 1)
    assert.equal(valueOf(after, 'petstore_portal_login_failures_total'), 2)
    assert.deepEqual(
      after.filter((s) => s.name === 'petstore_accounts').map((s) => [s.labels.plan, s.value]),
      [
        ['free', 1],
        ['pro', 1],
        ['business', 0],
        ['enterprise', 1],
      ],
    )
  },
)

test('/metrics: outbox depth and oldest age read at scrape; failed webhook deliveries counted by sink', async (t) => {
  // A receiver that always fails: every attempt is a failed delivery, and the messages stay queued for a retry.
  let received = 0
  const receiver = createServer((_req, res) => {
    received++
    res.writeHead(500).end()
  }).listen(0, '127.0.0.1')
  await once(receiver, 'listening')
  t.after(() => new Promise<void>((resolve) => receiver.close(() => resolve())))
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
  const webhook = createWebhookSink({
    url,
    secret: `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`,
    timeoutMs: 2_000,
  })
  // As the server wires it (server.ts): the webhook sink, its failures counted under its name. The harness builds
  // the services, so the counting sink is made on first use.
  let counted: MessageSink | undefined
  const h: MessagesHarness = await startMessagesHarness(t, {
    sink: { deliver: (m) => (counted ??= h.services.metrics.countingFailures('webhook', webhook)).deliver(m) },
  })
  const { key } = await h.newAccount()
  const empty = await scrape(h)
  assert.equal(valueOf(empty, 'petstore_messages_outbox_depth'), 0)
  assert.equal(valueOf(empty, 'petstore_messages_outbox_oldest_age_seconds'), 0)

  for (const message of ['first', 'second']) {
    const r = await h.app.inject({ method: 'POST', url: '/messages', headers: bearer(key), payload: { message } })
    assert.equal(r.statusCode, 202, r.body)
    h.clock.advance(30_000)
  }
  h.clock.advance(60_000) // the first is 120 s old, the second 90 s
  const queued = await scrape(h)
  assert.equal(valueOf(queued, 'petstore_messages_outbox_depth'), 2)
  assert.equal(valueOf(queued, 'petstore_messages_outbox_oldest_age_seconds'), 120)

  assert.equal(await h.worker.runOnce(), 2)
  assert.equal(received, 2)
  const failed = await scrape(h)
  assert.equal(valueOf(failed, 'petstore_message_delivery_failures_total', { sink: 'webhook' }), 2)
  assert.equal(valueOf(failed, 'petstore_messages_outbox_depth'), 2, 'both wait for their retry')
  assert.equal(valueOf(failed, 'petstore_messages_outbox_oldest_age_seconds'), 120)
})

test('the webhooks: attempts by outcome, what waits to go out and how old the oldest is', async (t) => {
  let status = 500
  const receiver = createServer((_req, res) => res.writeHead(status).end()).listen(0, '127.0.0.1')
  await once(receiver, 'listening')
  t.after(() => new Promise<void>((resolve) => receiver.close(() => resolve())))
  const h = await startHarness(t, { env: { WEBHOOK_RETRY_SCHEDULE: '10s' } })
  const { key } = await h.newAccount({ plan: 'business' })
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
  await addEndpoint(h, key, url)
  const empty = await scrape(h)
  for (const outcome of ['delivered', 'retry', 'failed'])
    assert.equal(valueOf(empty, 'petstore_webhook_delivery_attempts_total', { outcome }), 0)
  assert.equal(valueOf(empty, 'petstore_webhook_events_waiting'), 0)
  assert.equal(valueOf(empty, 'petstore_webhook_oldest_waiting_age_seconds'), 0)

  const pet = { name: 'Rex', categoryId: 1 }
  await h.app.inject({
    method: 'POST',
    url: '/v1/pets',
    headers: { ...bearer(key), 'content-type': 'application/json' },
    payload: pet,
  })
  h.clock.advance(90_000)
  const waiting = await scrape(h)
  assert.equal(valueOf(waiting, 'petstore_webhook_events_waiting'), 1)
  assert.equal(valueOf(waiting, 'petstore_webhook_oldest_waiting_age_seconds'), 90)
  const worker = h.services.webhooks!.worker(pino({ level: 'silent' }))
  await worker.runOnce()
  const retried = await scrape(h)
  assert.equal(valueOf(retried, 'petstore_webhook_delivery_attempts_total', { outcome: 'retry' }), 1)
  assert.equal(valueOf(retried, 'petstore_webhook_events_waiting'), 1, 'waiting for its retry')
  status = 204
  h.clock.advance(10_000)
  await worker.runOnce()
  const done = await scrape(h)
  assert.equal(valueOf(done, 'petstore_webhook_delivery_attempts_total', { outcome: 'delivered' }), 1)
  assert.equal(valueOf(done, 'petstore_webhook_events_waiting'), 0)
  assert.equal(valueOf(done, 'petstore_webhook_oldest_waiting_age_seconds'), 0)
})

test(
  '/metrics without METRICS_TOKEN answers loopback only: ' + 'a remote client gets 404, even claiming to be local',
  async (t) => {
    const h = await startHarness(t)
    for (const remoteAddress of ['127.0.0.1', '127.0.0.2', '::1', '::ffff:127.0.0.1']) {
      assert.equal((await h.app.inject({ url: '/metrics', remoteAddress })).statusCode, 200, remoteAddress)
    }
    for (const headers of [{}, { 'x-forwarded-for': '127.0.0.1' }, { host: 'localhost' }, bearer('anything')]) {
      const response = await h.app.inject({ url: '/metrics', remoteAddress: REMOTE, headers })
      assert.equal(response.statusCode, 404, JSON.stringify(headers))
      assert.equal(errorOf(response).code, 'not_found')
      assert.doesNotMatch(response.body, /petstore_/)
    }
  },
)

test(
  '/metrics with METRICS_TOKEN: a missing or wrong token is ' +
    '401 (from anywhere), the right one is 200 (from anywhere)',
  async (t) => {
    const token = 'metrics-secret-0123456789'
    const h = await startHarness(t, { config: { metricsToken: token } })
    const wrong = [
      {},
      bearer('metrics-secret-012345678X'),
      bearer(`${token}x`),
      bearer(token.slice(0, -1)),
      { authorization: `Basic ${token}` },
      { authorization: token },
    ]
    for (const remoteAddress of [REMOTE, '127.0.0.1']) {
      for (const headers of wrong) {
        const response = await h.app.inject({ url: '/metrics', remoteAddress, headers })
        assert.equal(response.statusCode, 401, `${remoteAddress} ${JSON.stringify(headers)}`)
        assert.equal(errorOf(response).code, 'invalid_api_key')
        assert.match(String(response.headers['www-authenticate']), /^Bearer /, 'a 401 names its scheme')
        assert.doesNotMatch(response.body, /petstore_|metrics-secret/)
      }
      for (const authorization of [`Bearer ${token}`, `bearer ${token}`]) {
        const response = await h.app.inject({ url: '/metrics', remoteAddress, headers: { authorization } })
        assert.equal(response.statusCode, 200, `${remoteAddress} ${authorization}`)
        assert.match(response.body, /^# TYPE petstore_rate_limit_bans_total counter$/m)
      }
    }
  },
)

test("the pool's gauges are read before the scrape's own queries ask the pool for connections", async (t) => {
  if (backend !== 'postgres') return t.skip('the pool gauges are PostgreSQL only')
  const h = await startHarness(t)
  const pool = h.handle.pool!
  // Every connection of the pool busy (as on a loaded instance; an idle one whose connections timed out is the same:
  // its scrape's queries wait for new ones): the scrape's queries must wait, and are counted waiting once queued.
  const held = await Promise.all(Array.from({ length: pool.options.max ?? 10 }, () => pool.connect()))
  let released = false
  const release = () => {
    if (!released) for (const client of held) client.release()
    released = true
  }
  t.after(release)
  const scraping = scrape(h)
  await pollUntil('the scrape waiting for connections', async () => (pool.waitingCount > 0 ? true : undefined))
  release()
  const samples = await scraping
  assert.equal(valueOf(samples, 'petstore_db_pool_waiting'), 0, 'read before the scrape queued its own queries')
})
