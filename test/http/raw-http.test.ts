// Requests Node's HTTP parser rejects never reach Fastify; they still get the JSON Error body.
// Sent byte for byte over a net.Socket to a listening server.
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { test } from 'node:test'
import { startHarness } from '../helpers/harness.js'

function sendRaw(baseUrl: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    let received = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk) => (received += chunk))
    socket.on('end', () => resolve(received))
    socket.on('error', reject)
    socket.write(bytes)
  })
}

function parseResponse(raw: string) {
  const [head = '', body = ''] = raw.split('\r\n\r\n')
  const [statusLine = '', ...headerLines] = head.split('\r\n')
  const headers = Object.fromEntries(headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
  return { status: Number(statusLine.split(' ')[1]), headers, body }
}

function assertErrorResponse(raw: string, status: number, code: string) {
  const response = parseResponse(raw)
  assert.equal(response.status, status, raw)
  assert.match(response.headers['content-type'] ?? '', /^application\/json/)
  assert.equal(Number(response.headers['content-length']), Buffer.byteLength(response.body))
  const body = JSON.parse(response.body) as Record<string, unknown>
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'status'])
  assert.equal(body.status, status)
  assert.equal(body.code, code)
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
  for (const request of requests) assertErrorResponse(await sendRaw(h.baseUrl, request), 400, 'bad_request')
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
