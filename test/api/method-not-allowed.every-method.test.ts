// Every method Node's HTTP parser accepts (http.METHODS: TRACE, PROPFIND, SEARCH, QUERY, CONNECT…), sent over a
// real TCP connection to every path of each listener's OpenAPI document, is a 405 with `Allow` and the Error
// body unless the path has it; on a path that does not exist, a 404. app.inject cannot send all of these, and
// Node hands CONNECT to the server apart from other requests, so the requests go through http.request.
import assert from 'node:assert/strict'
import { METHODS, request } from 'node:http'
import { test } from 'node:test'
import { errorOf, startHarness } from '../helpers/harness.js'
import { startMessagesHarness } from '../helpers/messages-harness.js'

type Doc = Record<string, any>
interface Answer {
  statusCode: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** One request on its own connection; a CONNECT's answer arrives as a `connect` event, its body on the socket. */
function send(baseUrl: string, method: string, path: string, body?: { type: string; text: string }): Promise<Answer> {
  const { hostname, port } = new URL(baseUrl)
  const headers = body ? { 'content-type': body.type, 'content-length': String(Buffer.byteLength(body.text)) } : {}
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, method, path, headers, agent: false }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => resolve({ statusCode: res.statusCode!, headers: res.headers, body: text }))
    })
    req.on('connect', (res, socket, head) => {
      let text = head.toString('utf8')
      socket.setEncoding('utf8')
      socket.on('data', (chunk) => (text += chunk))
      socket.on('end', () => resolve({ statusCode: res.statusCode!, headers: res.headers, body: text }))
    })
    req.on('error', reject)
    req.end(body?.text)
  })
}

/** The methods a path of the document has, with HEAD wherever GET is (Fastify answers it). */
function pathsOf(doc: Doc): Array<{ path: string; methods: Set<string> }> {
  const base = new URL(doc.servers[0].url).pathname.replace(/\/$/, '')
  return Object.entries(doc.paths as Doc).map(([path, item]) => {
    const methods = new Set(Object.keys(item as Doc).map((m) => m.toUpperCase()))
    if (methods.has('GET')) methods.add('HEAD')
    return { path: base + path.replace(/\{[^}]+\}/g, '1'), methods }
  })
}

const ALLOW_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

function assertAnswer(answer: Answer, method: string, status: number, code: string, what: string): void {
  assert.equal(answer.statusCode, status, `${what}: ${answer.body}`)
  assert.ok(answer.headers['x-request-id'], `${what}: X-Request-Id`)
  if (method === 'HEAD') return assert.equal(answer.body, '', what)
  assert.equal(errorOf(answer as never).code, code, what)
}

async function assertEveryMethod(baseUrl: string, doc: Doc, unknownPath: string): Promise<void> {
  assert.match(
    doc.info.description,
    /any method.*`405` `method_not_allowed` with an `Allow` header/,
    'the document says so',
  )
  const paths = pathsOf(doc)
  assert.ok(paths.length >= 2, "the document lists the listener's paths")
  for (const { path, methods } of paths) {
    const allow = ALLOW_ORDER.filter((m) => methods.has(m)).join(', ')
    for (const method of METHODS.filter((m) => !methods.has(m))) {
      const answer = await send(baseUrl, method, path)
      assertAnswer(answer, method, 405, 'method_not_allowed', `${method} ${path}`)
      assert.equal(answer.headers.allow, allow, `${method} ${path}`)
    }
    // With a body, even one of a type nothing here reads: the method is refused before the body is looked at.
    for (const [method, type] of [
      ['QUERY', 'application/json'],
      ['QUERY', 'text/plain'],
      ['PROPFIND', 'application/xml'],
    ] as const) {
      const answer = await send(baseUrl, method, path, { type, text: '{"name":"x"}' })
      assertAnswer(answer, method, 405, 'method_not_allowed', `${method} ${path} with a ${type} body`)
      assert.equal(answer.headers.allow, allow)
    }
  }
  for (const method of METHODS) {
    assertAnswer(await send(baseUrl, method, unknownPath), method, 404, 'not_found', `${method} ${unknownPath}`)
  }
}

// Every request here is without a key, so limited per address: enough of them for the few hundred sent.
const config = { unauthenticatedPerMinute: 100_000 }

test('pet store listener: every method a path lacks is a 405 with Allow; an unknown path a 404', async (t) => {
  const h = await startHarness(t, { listen: true, config })
  const doc = (await (await fetch(`${h.baseUrl}/v1/openapi.json`)).json()) as Doc
  await assertEveryMethod(h.baseUrl, doc, '/v1/no-such-thing')
  // The methods the path has still answer as themselves (here: no key).
  assertAnswer(await send(h.baseUrl, 'GET', '/v1/pets/1'), 'GET', 401, 'missing_api_key', 'GET /v1/pets/1')
})

test('messages listener: every method a path lacks is a 405 with Allow; an unknown path a 404', async (t) => {
  const h = await startMessagesHarness(t, { listen: true, config })
  const doc = (await (await fetch(`${h.baseUrl}/openapi.json`)).json()) as Doc
  await assertEveryMethod(h.baseUrl, doc, '/messages/1/no-such-thing')
})

test('a CONNECT to an address (a proxy tunnel) is a 404 and the connection closes', async (t) => {
  const h = await startHarness(t, { listen: true, config })
  const answer = await send(h.baseUrl, 'CONNECT', 'example.com:443')
  assertAnswer(answer, 'CONNECT', 404, 'not_found', 'CONNECT example.com:443')
  assert.equal(answer.headers.connection, 'close')
})
