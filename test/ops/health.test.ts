// Liveness and readiness, on both listeners: outside /v1, no key needed, no rate limits carried or consumed.
// /readyz reports each backend the service depends on: the database, and Redis when the limits live there
// (the PostgreSQL + Redis pass).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { backend } from '../helpers/backend.js'
import { bearer, errorOf, startHarness } from '../helpers/harness.js'
import { startMessagesHarness } from '../helpers/messages-harness.js'

const READY = { status: 'ready', checks: backend === 'postgres' ? { database: 'ok', redis: 'ok' } : { database: 'ok' } }
const RATE_LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit', 'ratelimit-policy', 'retry-after']

function assertNoRateLimitHeaders(response: { headers: Record<string, unknown> }, what: string) {
  for (const name of RATE_LIMIT_HEADERS) assert.equal(response.headers[name], undefined, `${what} carries ${name}`)
}

test('/healthz is 200 {status: "ok"} and /readyz is 200 with every check ok, without a key, on both listeners', async (t) => {
  const h = await startMessagesHarness(t, { pets: true })
  for (const [name, app] of [['pets', h.pets!], ['messages', h.app]] as const) {
    const health = await app.inject({ url: '/healthz' })
    assert.equal(health.statusCode, 200, `${name} /healthz`)
    assert.deepEqual(health.json(), { status: 'ok' })
    assert.match(String(health.headers['content-type']), /^application\/json/)
    const ready = await app.inject({ url: '/readyz' })
    assert.equal(ready.statusCode, 200, `${name} /readyz: ${ready.body}`)
    assert.deepEqual(ready.json(), READY)
  }
})

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
  assert.equal(unknown.headers['x-ratelimit-remaining'], '1', 'the address quota (2) is untouched: this is its first request')
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

test('/readyz is 503 service_unavailable naming the database when it cannot answer; /healthz stays 200', async (t) => {
  const h = await startHarness(t)
  await h.handle.close()
  const ready = await h.app.inject({ url: '/readyz' })
  assert.equal(ready.statusCode, 503)
  const body = errorOf(ready)
  assert.equal(body.code, 'service_unavailable')
  assert.match(body.message, /^Not ready: database unavailable \(.+\)\.$/)
  assert.match(String(ready.headers['retry-after']), /^[1-9]\d*$/)
  assert.equal((await h.app.inject({ url: '/healthz' })).statusCode, 200)
})
