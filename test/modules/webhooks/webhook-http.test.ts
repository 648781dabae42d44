// Delivering one webhook to a real receiver on 127.0.0.1: what it is sent, how each kind of answer (or none) is
// reported, and that an address the policy refuses is never connected to, whether named in the URL or found in
// DNS, with DNS asked once per attempt and the connection made to the address it answered (no rebinding). Only
// the resolver is injected; every connection is real. Not covered: a TLS handshake that succeeds or fails on a
// certificate (that needs a key and certificate, which Node cannot make in-process); a TLS failure is, below.
import assert from 'node:assert/strict'
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { createAddressPolicy } from '../../../src/modules/webhooks/address-policy.js'
import {
  checkWebhookUrl,
  createWebhookHttp,
  type Resolve,
  type WebhookRequest,
} from '../../../src/modules/webhooks/webhook-http.js'

type TestContext = { after: (fn: () => Promise<void>) => void }
type Handler = (req: IncomingMessage, res: ServerResponse) => void

/** A receiver on 127.0.0.1 (or ::1) that records every request it is sent, body included, then runs `handler`. */
async function receiver(t: TestContext, handler: Handler = (_req, res) => res.end(), host = '127.0.0.1') {
  const requests: { method?: string; url?: string; headers: IncomingHttpHeaders; body: string }[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      requests.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() })
      handler(req, res)
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, host, resolve)
  })
  t.after(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  const { port } = server.address() as AddressInfo
  return { port, requests }
}

const loopbackAllowed = createAddressPolicy({ allowed: [], allowLoopback: true })
const strict = createAddressPolicy({ allowed: [], allowLoopback: false })

function client(options: Partial<Parameters<typeof createWebhookHttp>[0]> = {}) {
  return createWebhookHttp({
    policy: loopbackAllowed,
    timeoutMs: 5000,
    userAgent: 'Petstore-Webhooks/1.0',
    allowHttp: true,
    ...options,
  })
}

const delivery = (url: string): WebhookRequest => ({
  url,
  headers: { 'webhook-id': 'msg_1', 'webhook-timestamp': '1700000000', 'webhook-signature': 'v1,abc=' },
  body: '{"type":"pet.created","data":{"id":"p1","name":"Rex ü"}}',
})

/** A resolver that answers `addresses` and counts how often it was asked. */
function counted(...answers: string[][]) {
  const calls: string[] = []
  const resolve: Resolve = async (host) => {
    calls.push(host)
    const answer = answers[Math.min(calls.length, answers.length) - 1]!
    return answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
  }
  return { resolve, calls }
}

test('the receiver gets a POST with the given headers, ours, and the body; a 2xx is ok', async (t) => {
  const { port, requests } = await receiver(t, (_req, res) => res.writeHead(202).end('thanks'))
  const request = delivery(`http://127.0.0.1:${port}/hooks/in?team=7`)
  request.headers['Content-Type'] = 'text/plain'
  request.headers.Host = 'intranet.local'
  const result = await client().send(request)
  assert.equal(result.ok, true)
  assert.equal(result.status, 202)
  assert.equal(result.responseExcerpt, 'thanks')
  assert.equal(result.errorClass, undefined)
  assert.equal(result.error, undefined)
  assert.ok(result.durationMs >= 0 && result.durationMs < 5000)
  assert.equal(requests.length, 1)
  const [received] = requests
  assert.equal(received!.method, 'POST')
  assert.equal(received!.url, '/hooks/in?team=7')
  assert.equal(received!.body, request.body)
  assert.equal(received!.headers['webhook-id'], 'msg_1')
  assert.equal(received!.headers['webhook-timestamp'], '1700000000')
  assert.equal(received!.headers['webhook-signature'], 'v1,abc=')
  assert.equal(received!.headers['user-agent'], 'Petstore-Webhooks/1.0')
  assert.equal(received!.headers['content-type'], 'application/json', "the caller's Content-Type is replaced")
  assert.equal(received!.headers['content-length'], String(Buffer.byteLength(request.body)))
  assert.equal(received!.headers.host, `127.0.0.1:${port}`, 'the Host header is the URL’s')
})

test('a 500 is http_status with the first 1024 bytes of a 1 MB body, read without waiting for the rest', async (t) => {
  const { port } = await receiver(t, (_req, res) => {
    res.writeHead(500, { 'content-type': 'text/plain' })
    res.write('x'.repeat(1024 * 1024))
    // Never ended: a client that waited for the whole body would wait for the deadline.
  })
  const result = await client({ timeoutMs: 10_000 }).send(delivery(`http://127.0.0.1:${port}/`))
  assert.equal(result.ok, false)
  assert.equal(result.status, 500)
  assert.equal(result.errorClass, 'http_status')
  assert.equal(result.error, '127.0.0.1 answered 500')
  assert.equal(result.responseExcerpt, 'x'.repeat(1024))
  assert.ok(result.durationMs < 2000, `took ${result.durationMs} ms`)
  assert.equal(result.retryAfterSeconds, undefined)
})

test('the excerpt is cut at a character boundary, never inside a UTF-8 sequence', async (t) => {
  // Byte 1023 is the first of an é's two bytes: the excerpt stops before that é.
  const { port } = await receiver(t, (_req, res) => res.writeHead(400).end('a' + 'é'.repeat(2000)))
  const result = await client().send(delivery(`http://127.0.0.1:${port}/`))
  assert.equal(result.status, 400)
  assert.equal(result.responseExcerpt, 'a' + 'é'.repeat(511))
})

test('a 302 is a redirect, not followed: its Location receives nothing', async (t) => {
  const target = await receiver(t)
  const { port, requests } = await receiver(t, (_req, res) =>
    res.writeHead(302, { location: `http://127.0.0.1:${target.port}/elsewhere` }).end(),
  )
  const result = await client().send(delivery(`http://127.0.0.1:${port}/`))
  assert.equal(result.ok, false)
  assert.equal(result.status, 302)
  assert.equal(result.errorClass, 'redirect')
  assert.match(result.error!, /^127\.0\.0\.1 answered 302, a redirect, which webhooks do not follow$/)
  assert.equal(requests.length, 1)
  assert.equal(target.requests.length, 0)
})

test('Retry-After is read on a 429 or 503, in seconds or as an HTTP-date, and on no other status', async (t) => {
  const answers: Array<[status: number, retryAfter: string]> = [
    [429, '120'],
    [503, new Date(Date.now() + 90_000).toUTCString()],
    [429, new Date(Date.now() - 60_000).toUTCString()],
    [429, 'soon'],
    [500, '120'],
  ]
  let next = 0
  const { port } = await receiver(t, (_req, res) => {
    const [status, retryAfter] = answers[next++]!
    res.writeHead(status, { 'retry-after': retryAfter }).end()
  })
  const http = client()
  const send = () => http.send(delivery(`http://127.0.0.1:${port}/`))

  const seconds = await send()
  assert.deepEqual([seconds.status, seconds.errorClass, seconds.retryAfterSeconds], [429, 'http_status', 120])
  const date = await send()
  assert.equal(date.status, 503)
  assert.ok(date.retryAfterSeconds! >= 85 && date.retryAfterSeconds! <= 90, `${date.retryAfterSeconds}`)
  assert.equal((await send()).retryAfterSeconds, 0, 'a date already past')
  assert.equal((await send()).retryAfterSeconds, undefined, 'not a number or a date')
  const other = await send()
  assert.equal(other.status, 500)
  assert.equal(other.retryAfterSeconds, undefined)
})

test('a receiver that never answers is a timeout at timeoutMs', async (t) => {
  const { port, requests } = await receiver(t, () => {})
  const result = await client({ timeoutMs: 200 }).send(delivery(`http://127.0.0.1:${port}/`))
  assert.equal(result.ok, false)
  assert.equal(result.errorClass, 'timeout')
  assert.equal(result.status, undefined)
  assert.equal(result.error, '127.0.0.1 did not answer within 200 ms')
  assert.ok(result.durationMs >= 190 && result.durationMs < 2000, `took ${result.durationMs} ms`)
  assert.equal(requests.length, 1)
})

test('attempts sent together share a deadline: the silent receiver times out, the others are answered', async (t) => {
  const silent = await receiver(t, () => {})
  const answering = await receiver(t, (_req, res) => res.writeHead(204).end())
  const results = await client({ timeoutMs: 300 }).sendAll([
    delivery(`http://127.0.0.1:${answering.port}/`),
    delivery(`http://127.0.0.1:${silent.port}/`),
    delivery(`http://127.0.0.1:${answering.port}/`),
  ])
  assert.deepEqual(
    results.map((r) => [r.status, r.errorClass]),
    [
      [204, undefined],
      [undefined, 'timeout'],
      [204, undefined],
    ],
  )
  assert.ok(results[1]!.durationMs >= 290, `the silent one had the whole timeout (${results[1]!.durationMs} ms)`)
  assert.equal(answering.requests.length, 2)
})

test('the deadline covers the DNS lookup too', async () => {
  const never: Resolve = () => new Promise(() => {})
  const result = await client({ timeoutMs: 100, resolve: never }).send(delivery('http://hooks.example.test/'))
  assert.equal(result.errorClass, 'timeout')
  assert.ok(result.durationMs < 2000, `took ${result.durationMs} ms`)
})

test('a closed port is refused', async () => {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  const result = await client().send(delivery(`http://127.0.0.1:${port}/`))
  assert.deepEqual(
    { ok: result.ok, errorClass: result.errorClass, error: result.error },
    { ok: false, errorClass: 'refused', error: '127.0.0.1 refused the connection' },
  )
})

test('an https: URL on a plain HTTP receiver is a TLS failure', async (t) => {
  const { requests, port } = await receiver(t)
  const result = await client().send(delivery(`https://127.0.0.1:${port}/`))
  assert.equal(result.errorClass, 'tls')
  assert.match(result.error!, /^the TLS handshake with 127\.0\.0\.1 failed \(\w+\)$/)
  assert.equal(requests.length, 0)
})

test('a host that resolves to a refused address is not connected to', async (t) => {
  const { port, requests } = await receiver(t)
  const { resolve, calls } = counted(['127.0.0.1'])
  const result = await client({ policy: strict, resolve }).send(delivery(`http://hooks.example.test:${port}/`))
  assert.equal(result.ok, false)
  assert.equal(result.errorClass, 'blocked_address')
  assert.equal(result.error, 'hooks.example.test resolves to a loopback address, which webhooks may not reach')
  assert.deepEqual(calls, ['hooks.example.test'])
  assert.equal(requests.length, 0)
})

test('a host is refused when any of its addresses is, even if the first would pass', async () => {
  const { resolve } = counted(['8.8.8.8', '10.0.0.1'])
  const result = await client({ policy: strict, resolve }).send(delivery('https://hooks.example.test/'))
  assert.equal(result.errorClass, 'blocked_address')
  assert.equal(result.error, 'hooks.example.test resolves to a private address, which webhooks may not reach')
})

test('DNS is asked once per attempt, and the connection goes to the address it answered', async (t) => {
  const { port, requests } = await receiver(t)
  // A second query would get a different answer (a rebinding attacker's): a name that exists nowhere, so
  // neither the system's resolver nor a second call of ours could connect to the receiver.
  const { resolve, calls } = counted(['127.0.0.1'], ['192.0.2.1'])
  const http = client({ resolve })
  const first = await http.send(delivery(`http://hooks.example.test:${port}/in`))
  assert.equal(first.ok, true, first.error)
  assert.equal(calls.length, 1)
  assert.equal(requests.length, 1)
  assert.equal(requests[0]!.headers.host, `hooks.example.test:${port}`, 'the Host header is the name, not the address')
  const second = await http.send(delivery(`http://hooks.example.test:${port}/in`))
  assert.equal(calls.length, 2, 'asked again for the next attempt')
  assert.equal(second.errorClass, 'blocked_address', 'which the policy now checks: 192.0.2.1')
  assert.equal(requests.length, 1)
})

test('a name resolving to several allowed addresses connects to one of them', async (t) => {
  const { port, requests } = await receiver(t)
  // ::1 first: with nothing listening there (or no IPv6 at all), the connection falls back to 127.0.0.1.
  const { resolve, calls } = counted(['::1', '127.0.0.1'])
  const result = await client({ resolve }).send(delivery(`http://hooks.example.test:${port}/`))
  assert.equal(result.ok, true, result.error)
  assert.equal(calls.length, 1)
  assert.equal(requests.length, 1)
})

test('the system resolver is used when none is given (localhost, from /etc/hosts)', async (t) => {
  const { port, requests } = await receiver(t)
  const refusedResult = await client({ policy: strict }).send(delivery(`http://localhost:${port}/`))
  assert.equal(refusedResult.errorClass, 'blocked_address')
  assert.match(refusedResult.error!, /^localhost resolves to a loopback address/)
  assert.equal(requests.length, 0)
  const result = await client().send(delivery(`http://localhost:${port}/`))
  assert.equal(result.ok, true, result.error)
  assert.equal(requests.length, 1)
})

test('DNS failures are dns', async () => {
  const notFound: Resolve = async () => {
    throw Object.assign(new Error('getaddrinfo ENOTFOUND hooks.example.test'), { code: 'ENOTFOUND' })
  }
  const result = await client({ resolve: notFound }).send(delivery('https://hooks.example.test/'))
  assert.deepEqual(
    { errorClass: result.errorClass, error: result.error },
    { errorClass: 'dns', error: 'hooks.example.test was not found in DNS' },
  )
  const empty = await client({ resolve: async () => [] }).send(delivery('https://hooks.example.test/'))
  assert.equal(empty.errorClass, 'dns')
})

test('an IP literal is checked without DNS, IPv6 in brackets too', async (t) => {
  const { resolve, calls } = counted(['8.8.8.8'])
  const http = client({ policy: strict, resolve })
  const v4 = await http.send(delivery('http://127.0.0.1:9/'))
  assert.equal(v4.error, '127.0.0.1 is a loopback address, which webhooks may not reach')
  const v6 = await http.send(delivery('http://[::1]:9/'))
  assert.equal(v6.errorClass, 'blocked_address')
  assert.equal(v6.error, '::1 is a loopback address, which webhooks may not reach')
  const mapped = await http.send(delivery('http://[::ffff:127.0.0.1]:9/'))
  assert.equal(mapped.error, '::ffff:7f00:1 is an IPv4-mapped loopback address, which webhooks may not reach')
  const metadata = await http.send(delivery('http://169.254.169.254/latest/meta-data/'))
  assert.equal(metadata.error, '169.254.169.254 is a cloud metadata address, which webhooks may not reach')
  assert.equal(calls.length, 0)

  let ipv6: Awaited<ReturnType<typeof receiver>>
  try {
    ipv6 = await receiver(t, undefined, '::1')
  } catch {
    t.diagnostic('no IPv6 loopback here: delivering to [::1] not tried')
    return
  }
  const result = await client().send(delivery(`http://[::1]:${ipv6.port}/`))
  assert.equal(result.ok, true, result.error)
  assert.equal(ipv6.requests[0]!.headers.host, `[::1]:${ipv6.port}`)
})

test('a URL with credentials, or http: where only https: is allowed, is refused before any connection', async (t) => {
  const { port, requests } = await receiver(t)
  const withCredentials = await client().send(delivery(`http://user:secret@127.0.0.1:${port}/`))
  assert.deepEqual(
    { ok: withCredentials.ok, errorClass: withCredentials.errorClass, error: withCredentials.error },
    { ok: false, errorClass: 'refused', error: 'the URL must not contain a user name or password' },
  )
  const plain = await client({ allowHttp: false }).send(delivery(`http://127.0.0.1:${port}/`))
  assert.equal(plain.errorClass, 'refused')
  assert.equal(plain.error, 'the URL must start with https://')
  assert.equal(requests.length, 0)
})

test('checkWebhookUrl', () => {
  const https = { allowHttp: false }
  const either = { allowHttp: true }
  assert.equal(checkWebhookUrl('https://hooks.example.com/in?x=1', https), undefined)
  assert.equal(checkWebhookUrl('https://[2606:4700::1]:8443/', https), undefined)
  assert.equal(checkWebhookUrl('http://hooks.example.com/', either), undefined)
  assert.equal(checkWebhookUrl('http://hooks.example.com/', https), 'the URL must start with https://')
  assert.equal(checkWebhookUrl('ftp://hooks.example.com/', either), 'the URL must start with https:// or http://')
  assert.equal(checkWebhookUrl('file:///etc/passwd', either), 'the URL must start with https:// or http://')
  assert.equal(checkWebhookUrl('hooks.example.com/in', https), 'the URL is not a valid absolute URL')
  assert.equal(checkWebhookUrl('https://', https), 'the URL is not a valid absolute URL')
  const credentials = 'the URL must not contain a user name or password'
  assert.equal(checkWebhookUrl('https://user:pw@hooks.example.com/', https), credentials)
  assert.equal(checkWebhookUrl('https://user@hooks.example.com/', https), credentials)
  assert.equal(checkWebhookUrl('https://:pw@hooks.example.com/', https), credentials)
  const fragment = 'the URL must not contain a fragment (#)'
  assert.equal(checkWebhookUrl('https://hooks.example.com/#top', https), fragment)
  assert.equal(checkWebhookUrl('https://hooks.example.com/#', https), fragment)
  const spaces = 'the URL must not contain spaces or control characters'
  assert.equal(checkWebhookUrl(' https://hooks.example.com/', https), spaces)
  assert.equal(checkWebhookUrl('https://hooks.example.com/a\tb', https), spaces)
  const long = `https://hooks.example.com/${'a'.repeat(2048 - 26)}`
  assert.equal(long.length, 2048)
  assert.equal(checkWebhookUrl(long, https), undefined)
  assert.equal(checkWebhookUrl(`${long}a`, https), 'the URL is longer than 2048 characters')
})
