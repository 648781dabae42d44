// CORS_ORIGINS: pages of the listed origins may call the API from a browser. Preflights work without a key (and
// carry the address's limit headers), answers and errors expose the headers a client needs; other origins, other
// paths and the default configuration get no CORS headers at all.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, errorOf, startHarness } from '../helpers/harness.js'
import { startMessagesHarness } from '../helpers/messages-harness.js'
import { limitHeaders } from '../modules/limits/support.js'

const APP = 'https://app.example.com'
const OTHER = 'https://evil.example.net'
const EXPOSED = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit',
  'ratelimit-policy',
  'retry-after',
  'link',
  'location',
  'deprecation',
  'sunset',
  'x-request-id',
]

const preflight = (origin: string, method = 'POST') => ({
  origin,
  'access-control-request-method': method,
  'access-control-request-headers': 'authorization, content-type, idempotency-key, x-petstore-retry-count',
})

const list = (value: unknown) =>
  String(value ?? '')
    .toLowerCase()
    .split(/\s*,\s*/)
const corsHeadersOf = (headers: Record<string, unknown>) =>
  Object.keys(headers).filter((h) => h.startsWith('access-control-'))

test(
  'a preflight from an allowed origin is a 204 without a key, ' +
    'allowing the API headers, with the address limit headers',
  async (t) => {
    const h = await startHarness(t, { env: { CORS_ORIGINS: `${APP}, https://other.example.com` } })
    for (const [url, method] of [
      ['/v1/pets', 'POST'],
      ['/v1/pets', 'GET'],
      ['/v1/pets/1', 'GET'],
      ['/v1/store/orders/1', 'DELETE'],
    ] as const) {
      const res = await h.app.inject({ method: 'OPTIONS', url, headers: preflight(APP, method) })
      assert.equal(res.statusCode, 204, `${url}: ${res.body}`)
      assert.equal(res.headers['access-control-allow-origin'], APP)
      assert.ok(list(res.headers['access-control-allow-methods']).includes(method.toLowerCase()))
      // x-petstore-retry-count: @petstore/sdk sends it on retries; without it a browser's retry fails its preflight.
      for (const header of ['authorization', 'content-type', 'idempotency-key', 'x-petstore-retry-count'])
        assert.ok(list(res.headers['access-control-allow-headers']).includes(header), header)
      assert.match(String(res.headers.vary), /Origin/i)
      assert.equal(limitHeaders(res).policy, '"minute";q=60;w=60', 'counted against the address')
    }
  },
)

test(
  'answers and errors to an allowed origin carry ' + 'Access-Control-Allow-Origin and expose the API headers',
  async (t) => {
    const h = await startHarness(t, { env: { CORS_ORIGINS: APP } })
    const { key } = await h.newAccount()
    const cases = [
      [200, await h.app.inject({ url: '/v1/pets', headers: { ...bearer(key), origin: APP } })],
      [
        201,
        await h.app.inject({
          method: 'POST',
          url: '/v1/pets',
          headers: { ...bearer(key), origin: APP },
          payload: { name: 'Rex', categoryId: 1 },
        }),
      ],
      [401, await h.app.inject({ url: '/v1/pets', headers: { origin: APP } })],
      [404, await h.app.inject({ url: '/v1/pets/123456', headers: { ...bearer(key), origin: APP } })],
    ] as const
    for (const [status, res] of cases) {
      assert.equal(res.statusCode, status, res.body)
      assert.equal(res.headers['access-control-allow-origin'], APP, String(status))
      const exposed = list(res.headers['access-control-expose-headers'])
      for (const header of EXPOSED) assert.ok(exposed.includes(header), `${status}: ${header} not exposed`)
      if (status >= 400) errorOf(res)
    }
  },
)

test('another origin, a non-API path, or no CORS_ORIGINS: no CORS headers, and OPTIONS stays a 405', async (t) => {
  const h = await startHarness(t, { env: { CORS_ORIGINS: APP } })
  const { key } = await h.newAccount()
  const other = await h.app.inject({ method: 'OPTIONS', url: '/v1/pets', headers: preflight(OTHER) })
  assert.equal(other.statusCode, 405)
  assert.deepEqual(corsHeadersOf(other.headers), [])
  assert.deepEqual(
    corsHeadersOf((await h.app.inject({ url: '/v1/pets', headers: { ...bearer(key), origin: OTHER } })).headers),
    [],
  )
  assert.deepEqual(corsHeadersOf((await h.app.inject({ url: '/healthz', headers: { origin: APP } })).headers), [])
  const plainOptions = await h.app.inject({ method: 'OPTIONS', url: '/v1/pets', headers: { origin: APP } })
  assert.equal(plainOptions.statusCode, 405, 'an OPTIONS without Access-Control-Request-Method is not a preflight')
  const unknown = await h.app.inject({ method: 'OPTIONS', url: '/nope' })
  assert.equal(unknown.statusCode, 404)
  assert.equal(errorOf(unknown).code, 'not_found')
  limitHeaders(unknown)

  const plain = await startHarness(t)
  const res = await plain.app.inject({ method: 'OPTIONS', url: '/v1/pets', headers: preflight(APP) })
  assert.equal(res.statusCode, 405)
  assert.deepEqual(corsHeadersOf(res.headers), [])
})

test('the messages listener answers CORS for its API paths too', async (t) => {
  const h = await startMessagesHarness(t, { env: { CORS_ORIGINS: APP } })
  const res = await h.app.inject({ method: 'OPTIONS', url: '/messages', headers: preflight(APP) })
  assert.equal(res.statusCode, 204, res.body)
  assert.equal(res.headers['access-control-allow-origin'], APP)
  const unauthorized = await h.app.inject({
    method: 'POST',
    url: '/messages',
    headers: { origin: APP },
    payload: { message: 'hi' },
  })
  assert.equal(unauthorized.statusCode, 401)
  assert.equal(unauthorized.headers['access-control-allow-origin'], APP)
})

test('CORS_ORIGINS must list origins', async () => {
  const { loadConfig } = await import('../../src/kernel/config.js')
  for (const bad of ['*', 'https://app.example.com/path', 'not a url', ' , '])
    assert.throws(() => loadConfig({ CORS_ORIGINS: bad }), /CORS_ORIGINS/, bad)
  assert.deepEqual(loadConfig({ CORS_ORIGINS: 'https://a.example, http://localhost:3000' }).corsOrigins, [
    'https://a.example',
    'http://localhost:3000',
  ])
})
