// Requests refused before routing (Node's HTTP parser, Fastify's router, no Host, an unsupported Expect, a
// request too slow to arrive) still get the JSON Error body, an X-Request-Id and the client address's limit
// headers, and count against that address. Sent byte for byte over a net.Socket to a listening server.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startHarness } from '../helpers/harness.js'
import { portalHarness } from '../helpers/portal.js'
import { parseResponse, sendRaw } from '../helpers/raw-http.js'
import { limitHeaders } from '../modules/limits/support.js'

const ADDRESS_POLICY = '"minute";q=60;w=60'

/** Asserts the Error body and the address's limit headers; returns the X-RateLimit-Remaining. */
function assertErrorResponse(raw: string, status: number, code: string, policy = ADDRESS_POLICY): number {
  const response = parseResponse(raw)
  assert.equal(response.status, status, raw)
  assert.match(response.headers['content-type'] ?? '', /^application\/json/)
  assert.equal(Number(response.headers['content-length']), Buffer.byteLength(response.body))
  const body = JSON.parse(response.body) as Record<string, unknown>
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'status'])
  assert.equal(body.status, status)
  assert.equal(body.code, code)
  assert.match(response.headers['x-request-id'] ?? '', /^[\w.:@+=-]{1,128}$/, raw)
  const limits = limitHeaders({ statusCode: status, headers: response.headers, body: response.body })
  assert.equal(limits.policy, policy, raw)
  return limits.remaining
}

test('a request line that is not HTTP gets a 400 with the JSON Error body', async (t) => {
  const h = await startHarness(t, { listen: true })
  assertErrorResponse(await sendRaw(h.baseUrl, 'GARBAGE\r\n\r\n'), 400, 'bad_request')
})

test('malformed headers and framing get a 400 with the JSON Error body', async (t) => {
  const h = await startHarness(t, { listen: true })
  const requests = [
    'GET /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
    'GET /v1/pets HTTP/1.1\r\nHost: x\r\nBad Header Name: 1\r\n\r\n',
    'GET /v1/pets HTTP/9.9\r\nHost: x\r\n\r\n',
    'POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n',
    'GET /v1/pets HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
  ]
  let expected = 60
  for (const request of requests)
    assert.equal(assertErrorResponse(await sendRaw(h.baseUrl, request), 400, 'bad_request'), --expected, request)
})

test('headers too large to read get a 431 with the JSON Error body', async (t) => {
  const h = await startHarness(t, { listen: true })
  const raw = await sendRaw(h.baseUrl, `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
  assertErrorResponse(raw, 431, 'headers_too_large')
})

test('the server keeps answering normally after malformed requests', async (t) => {
  const h = await startHarness(t, { listen: true })
  const { key } = await h.newAccount()
  await sendRaw(h.baseUrl, 'GARBAGE\r\n\r\n')
  const response = await fetch(`${h.baseUrl}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })
  assert.equal(response.status, 200)
  assert.deepEqual(await response.json(), [])
})

test('HTTP/1.1 without Host is a 400 bad_request with the Error body; HTTP/1.0 without Host is served', async (t) => {
  const h = await startHarness(t, { listen: true })
  const raw = await sendRaw(h.baseUrl, 'GET /v1/pets HTTP/1.1\r\nConnection: close\r\n\r\n')
  assert.equal(assertErrorResponse(raw, 400, 'bad_request'), 59)
  assert.match(JSON.parse(parseResponse(raw).body).message, /Host/)
  assertErrorResponse(await sendRaw(h.baseUrl, 'GET /v1/pets HTTP/1.0\r\n\r\n'), 401, 'missing_api_key')
})

test('an unsupported Expect is a 417 expectation_failed; Expect: 100-continue is served', async (t) => {
  const h = await startHarness(t, { listen: true })
  const { key } = await h.newAccount()
  const raw = await sendRaw(
    h.baseUrl,
    `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nExpect: 200-ok\r\n` +
      'Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
  )
  assert.equal(assertErrorResponse(raw, 417, 'expectation_failed'), 59, 'counted against the address, not the account')
  assert.equal(parseResponse(raw).headers.connection, 'close')
  const body = '{"name":"Rex","categoryId":1}'
  const ok = await sendRaw(
    h.baseUrl,
    `POST /v1/pets HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${key}\r\n` +
      `Expect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
  )
  assert.match(ok, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /)
})

test('a URL with malformed percent-encoding is a 400 bad_request with the address headers', async (t) => {
  const h = await startHarness(t, { listen: true })
  const raw = await sendRaw(h.baseUrl, 'GET /v1/pets/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
  assert.equal(assertErrorResponse(raw, 400, 'bad_request'), 59)
})

test('a request that does not arrive in time is a 408 request_timeout with the address headers', async (t) => {
  const h = await startHarness(t, { listen: true, config: { requestTimeoutMs: 300 } })
  const { key } = await h.newAccount()
  const started = Date.now()
  const partial = await sendRaw(h.baseUrl, 'GET /v1/pets HTTP/1.1\r\nHost: x\r\n')
  assert.equal(assertErrorResponse(partial, 408, 'request_timeout'), 59)
  const slowBody = await sendRaw(
    h.baseUrl,
    `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na',
  )
  assert.equal(assertErrorResponse(slowBody, 408, 'request_timeout'), 58)
  assert.ok(Date.now() - started < 5_000, "answered soon after the timeout, not after Node's 30 s check interval")
  // Answered before its body arrived (no key): the timeout only closes the connection, no second response.
  const early = await sendRaw(
    h.baseUrl,
    'POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na',
  )
  assert.equal(early.match(/^HTTP\/1\.1 /gm)?.length, 1, early)
  assertErrorResponse(early, 401, 'missing_api_key')
})

test('refusals before routing count against the address: once it is out of requests they get the 429', async (t) => {
  const h = await startHarness(t, { listen: true, config: { unauthenticatedPerMinute: 3 } })
  const Q3 = '"minute";q=3;w=60'
  assert.equal(assertErrorResponse(await sendRaw(h.baseUrl, 'GARBAGE\r\n\r\n'), 400, 'bad_request', Q3), 2)
  assert.equal(
    assertErrorResponse(
      await sendRaw(h.baseUrl, 'GET /v1/pets HTTP/1.1\r\nConnection: close\r\n\r\n'),
      400,
      'bad_request',
      Q3,
    ),
    1,
  )
  assert.equal(
    assertErrorResponse(
      await sendRaw(h.baseUrl, `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
      431,
      'headers_too_large',
      Q3,
    ),
    0,
  )
  for (const request of [
    'GARBAGE\r\n\r\n',
    'GET /v1/pets/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    'GET /v1/pets HTTP/1.1\r\nConnection: close\r\n\r\n',
  ]) {
    const raw = await sendRaw(h.baseUrl, request)
    assert.equal(assertErrorResponse(raw, 429, 'rate_limit_exceeded', Q3), 0, request)
    assert.match(parseResponse(raw).headers['retry-after'] ?? '', /^[1-9]\d*$/)
  }
})

test(
  'a request with two Host headers is a 400: ' +
    "the Error body on the API and the docs, the site's page on the portal and the console",
  async (t) => {
    const h = await portalHarness(t, { listen: true })
    const twice = (method: string, path: string, hosts = 'Host: a.example\r\nHost: b.example', version = '1.1') =>
      sendRaw(
        h.baseUrl,
        `${method} ${path} HTTP/${version}\r\n${hosts}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
      )
    for (const raw of [
      await twice('GET', '/v1/pets'),
      await twice('POST', '/v1/pets'),
      await twice('GET', '/v1/pets', 'Host: a.example\r\nhost: a.example'),
      await twice('GET', '/v1/pets', 'HOST: a.example\r\nHost: b.example', '1.0'),
      await twice('GET', '/docs/json'),
      await twice('GET', '/nothing'),
    ]) {
      assertErrorResponse(raw, 400, 'bad_request')
      assert.match(JSON.parse(parseResponse(raw).body).message, /one Host header/, raw)
    }
    for (const [method, path] of [
      ['GET', '/portal/login'],
      ['POST', '/portal/login'],
      ['GET', '/console/login'],
      ['POST', '/console/login'],
    ] as const) {
      const response = parseResponse(await twice(method, path))
      assert.equal(response.status, 400, `${method} ${path}`)
      assert.match(response.headers['content-type'] ?? '', /^text\/html/, `${method} ${path}`)
      assert.match(response.body, /one Host header/)
    }
    // One Host is served as before.
    assert.equal(
      parseResponse(
        await sendRaw(h.baseUrl, 'GET /portal/login HTTP/1.1\r\nHost: a.example\r\nConnection: close\r\n\r\n'),
      ).status,
      200,
    )
  },
)
