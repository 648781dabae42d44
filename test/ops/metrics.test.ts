// GET /metrics: Prometheus text with requests by route pattern and status, rate-limit refusals and bans,
// process metrics and (PostgreSQL) pool use; guarded by METRICS_TOKEN, or answered on loopback only.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { backend } from '../helpers/backend.js'
import { bearer, errorOf, startHarness, type Harness } from '../helpers/harness.js'

const REMOTE = '10.0.0.1'

type Sample = { name: string; labels: Record<string, string>; value: number }

/** The samples of a Prometheus text exposition (comments skipped). */
function parse(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
      assert.ok(m, `not a sample line: ${line}`)
      const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]))
      return { name: m[1]!, labels, value: Number(m[3]) }
    })
}

/** The value of the one sample with exactly these labels; undefined if there is none. */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const matching = samples.filter((s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === JSON.stringify(Object.entries(labels).sort()))
  assert.ok(matching.length <= 1, `${matching.length} samples of ${name} ${JSON.stringify(labels)}`)
  return matching[0]?.value
}

async function scrape(h: Harness, headers: Record<string, string> = {}): Promise<Sample[]> {
  const response = await h.app.inject({ url: '/metrics', headers })
  assert.equal(response.statusCode, 200, response.body)
  assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/)
  assert.match(response.body, /^# HELP petstore_http_request_duration_seconds /m)
  assert.match(response.body, /^# TYPE petstore_http_request_duration_seconds histogram$/m)
  return parse(response.body)
}

const requests = (route: string, status: number, method = 'GET') => ({ listener: 'pets', method, route, status: String(status) })

test('/metrics from loopback: request counts and latency by route pattern and status, process and pool metrics', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  for (let i = 0; i < 3; i++) assert.equal((await h.app.inject({ url: '/v1/pets', headers: bearer(key) })).statusCode, 200)
  assert.equal((await h.app.inject({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: 'Rex', categoryId: 1 } })).statusCode, 201)
  assert.equal((await h.app.inject({ url: '/v1/pets/987654321', headers: bearer(key) })).statusCode, 404)
  assert.equal((await h.app.inject({ url: '/v1/pets' })).statusCode, 401)
  assert.equal((await h.app.inject({ url: '/no/such/path/12345' })).statusCode, 404)

  const samples = await scrape(h)
  const count = (labels: Record<string, string>) => valueOf(samples, 'petstore_http_request_duration_seconds_count', labels)
  assert.equal(count(requests('/v1/pets', 200)), 3)
  assert.equal(count(requests('/v1/pets', 201, 'POST')), 1)
  assert.equal(count(requests('/v1/pets/:petId', 404)), 1)
  assert.equal(count(requests('/v1/pets', 401)), 1)
  assert.equal(valueOf(samples, 'petstore_http_request_duration_seconds_bucket', { ...requests('/v1/pets', 200), le: '+Inf' }), 3)
  assert.ok((valueOf(samples, 'petstore_http_request_duration_seconds_sum', requests('/v1/pets', 200)) ?? -1) >= 0)
  const labelValues = samples.flatMap((s) => Object.values(s.labels))
  assert.ok(!labelValues.some((v) => /987654321|12345/.test(v)), 'raw paths never become label values (one series per route pattern)')
  assert.ok(samples.some((s) => s.name.startsWith('petstore_process_')), 'process metrics')
  const pool = valueOf(samples, 'petstore_db_pool_connections')
  if (backend === 'postgres') assert.ok(pool !== undefined && pool >= 1, `pool connections: ${pool}`)
  else assert.equal(pool, undefined, 'no pool on SQLite')
  // The page and pet reads above went over the pipelined connections.
  const pipelined = valueOf(samples, 'petstore_db_pipelined_connections')
  if (backend === 'postgres') assert.ok(pipelined !== undefined && pipelined >= 1, `pipelined connections: ${pipelined}`)
  else assert.equal(pipelined, undefined, 'no pipelined connections on SQLite')
})

test('/metrics counts 429 refusals by reason and subject, and bans when they start', async (t) => {
  const h = await startHarness(t, { config: { banThreshold: 2, unauthenticatedPerMinute: 1 } })
  const { key } = await h.newAccount({ plan: 'enterprise', perMinute: 1, perDay: 100 })
  const before = await scrape(h)
  assert.equal(valueOf(before, 'petstore_rate_limit_bans_total'), 0)
  assert.equal(valueOf(before, 'petstore_rate_limit_refusals_total', { reason: 'rate_limit_exceeded', subject: 'account' }), undefined)

  const codes: string[] = []
  for (let i = 0; i < 6; i++) {
    const r = await h.app.inject({ url: '/v1/pets', headers: bearer(key) })
    codes.push(r.statusCode === 200 ? 'ok' : errorOf(r).code)
  }
  assert.deepEqual(codes, ['ok', 'rate_limit_exceeded', 'rate_limit_exceeded', 'temporarily_banned', 'temporarily_banned', 'temporarily_banned'])
  assert.equal((await h.app.inject({ url: '/v1/pets' })).statusCode, 401)
  assert.equal((await h.app.inject({ url: '/v1/pets' })).statusCode, 429)

  const after = await scrape(h)
  assert.equal(valueOf(after, 'petstore_rate_limit_refusals_total', { reason: 'rate_limit_exceeded', subject: 'account' }), 2)
  assert.equal(valueOf(after, 'petstore_rate_limit_refusals_total', { reason: 'temporarily_banned', subject: 'account' }), 3)
  assert.equal(valueOf(after, 'petstore_rate_limit_refusals_total', { reason: 'rate_limit_exceeded', subject: 'address' }), 1)
  assert.equal(valueOf(after, 'petstore_rate_limit_bans_total'), 1, 'one ban started, however many requests it refused')
  assert.equal(valueOf(after, 'petstore_http_request_duration_seconds_count', requests('/v1/pets', 429)), 6)
})

test('/metrics without METRICS_TOKEN answers loopback only: a remote client gets 404, even claiming to be local', async (t) => {
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
})

test('/metrics with METRICS_TOKEN: a missing or wrong token is 401 (from anywhere), the right one is 200 (from anywhere)', async (t) => {
  const token = 'metrics-secret-0123456789'
  const h = await startHarness(t, { config: { metricsToken: token } })
  const wrong = [{}, bearer('metrics-secret-012345678X'), bearer(`${token}x`), bearer(token.slice(0, -1)), { authorization: `Basic ${token}` }, { authorization: token }]
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
})
