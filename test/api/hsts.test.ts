// Strict-Transport-Security when PETSTORE_PUBLIC_URL is https: on every answer of every listener (the API, its
// errors and 404s, refusals before routing, the portal, the console, the docs, /metrics, the messages interface),
// max-age one year, includeSubDomains only with HSTS_INCLUDE_SUBDOMAINS=on; never when the public URL is http.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadConfig } from '../../src/kernel/config.js'
import { bearer, startHarness, type Harness } from '../helpers/harness.js'
import { startMessagesHarness } from '../helpers/messages-harness.js'
import { parseResponse, sendRaw } from '../helpers/raw-http.js'

const HTTPS = 'https://petstore.test'
const ONE_YEAR = 'max-age=31536000'

/** The HSTS header of each kind of answer the pet store listener gives, by what was asked. */
async function hstsOfEveryAnswer(h: Harness): Promise<Map<string, string | undefined>> {
  const { key } = await h.newAccount()
  const seen = new Map<string, string | undefined>()
  const fetched = async (what: string, path: string, init: RequestInit = {}) => {
    const response = await fetch(h.baseUrl + path, { redirect: 'manual', ...init })
    await response.arrayBuffer()
    seen.set(`${what} (${response.status})`, response.headers.get('strict-transport-security') ?? undefined)
  }
  await fetched('an API answer', '/v1/pets', { headers: bearer(key) })
  await fetched('an API refusal', '/v1/pets')
  await fetched('invalid JSON', '/v1/pets', {
    method: 'POST',
    headers: { ...bearer(key), 'content-type': 'application/json' },
    body: '{',
  })
  await fetched('a 405', '/v1/pets', { method: 'PUT', headers: bearer(key) })
  await fetched('a 404', '/nothing')
  await fetched('the index', '/')
  await fetched('a portal page', '/portal/login')
  await fetched('a portal 404', '/portal/nothing')
  await fetched('a portal form refusal', '/portal/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  })
  await fetched('a console page', '/console/login')
  await fetched('the docs', '/docs')
  await fetched('the docs page', '/docs/static/index.html')
  await fetched('the OpenAPI document', '/v1/openapi.json')
  await fetched('the health check', '/healthz')
  await fetched('the metrics', '/metrics')
  const raw = (what: string, bytes: string) =>
    sendRaw(h.baseUrl, bytes).then((text) => seen.set(what, parseResponse(text).headers['strict-transport-security']))
  await raw('HTTP that does not parse', 'GARBAGE\r\n\r\n')
  await raw('a URL that does not decode', 'GET /v1/pets/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
  await raw('HTTP/1.1 without Host', 'GET /v1/pets HTTP/1.1\r\nConnection: close\r\n\r\n')
  return seen
}

test(
  'with an https public URL every answer of the pet store ' + 'listener carries Strict-Transport-Security for a year',
  async (t) => {
    const h = await startHarness(t, { listen: true, env: { PETSTORE_PUBLIC_URL: HTTPS } })
    for (const [what, value] of await hstsOfEveryAnswer(h)) assert.equal(value, ONE_YEAR, what)
  },
)

test(
  'HSTS_INCLUDE_SUBDOMAINS=on adds includeSubDomains; ' + 'any other value than on or off is refused at start',
  async (t) => {
    const h = await startHarness(t, {
      listen: true,
      env: { PETSTORE_PUBLIC_URL: HTTPS, HSTS_INCLUDE_SUBDOMAINS: 'on' },
    })
    for (const [what, value] of await hstsOfEveryAnswer(h)) assert.equal(value, `${ONE_YEAR}; includeSubDomains`, what)
    assert.equal(loadConfig({}).hstsIncludeSubdomains, false)
    assert.throws(
      () => loadConfig({ HSTS_INCLUDE_SUBDOMAINS: 'yes' }),
      /HSTS_INCLUDE_SUBDOMAINS="yes": must be one of on, off/,
    )
  },
)

test('with an http public URL (or none) no answer carries Strict-Transport-Security', async (t) => {
  for (const env of [{ PETSTORE_PUBLIC_URL: 'http://petstore.test' }, { HSTS_INCLUDE_SUBDOMAINS: 'on' }]) {
    const h = await startHarness(t, { listen: true, env })
    for (const [what, value] of await hstsOfEveryAnswer(h)) assert.equal(value, undefined, what)
  }
})

test('the messages listener carries it too: the same host, and HSTS is per host, not per port', async (t) => {
  const h = await startMessagesHarness(t, { listen: true, env: { PETSTORE_PUBLIC_URL: HTTPS } })
  for (const path of ['/messages', '/nothing', '/docs', '/healthz']) {
    const response = await fetch(h.baseUrl + path, { redirect: 'manual' })
    await response.arrayBuffer()
    assert.equal(response.headers.get('strict-transport-security'), ONE_YEAR, path)
  }
  assert.equal(
    parseResponse(await sendRaw(h.baseUrl, 'GARBAGE\r\n\r\n')).headers['strict-transport-security'],
    ONE_YEAR,
  )
})
