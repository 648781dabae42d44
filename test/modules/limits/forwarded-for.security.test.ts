// Forged X-Forwarded-For over real TCP. With TRUST_PROXY the client is the right-most address of the chain
// that is not a trusted proxy (TRUST_PROXY=N: exactly N hops from the right); whatever a client writes to the
// left of it changes nothing, so rotating forged addresses does not escape the per-address limits: the 61st
// bad-key request of a minute gets 429 exactly as without the header, and the log names the real client.
// The proxy here is a real HTTP relay on 127.0.0.1 that appends the address it sees, as HAProxy's
// `option forwardfor` and nginx's `$proxy_add_x_forwarded_for` do; clients connect to it from 127.0.0.2.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, request, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { startHarness } from '../../helpers/harness.js'

type After = { after: (fn: () => Promise<void> | void) => void }

/** GET `url` from the local address `from`; resolves with the status. */
function get(url: string, headers: Record<string, string>, from = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { ...headers, connection: 'close' }, localAddress: from }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode!))
    })
    req.on('error', reject)
    req.end()
  })
}

/** A one-hop reverse proxy on 127.0.0.1 in front of `origin`: appends the client's address to X-Forwarded-For. */
async function relay(t: After, origin: string): Promise<string> {
  const target = new URL(origin)
  const server = createServer((req, res) => {
    const seen = req.socket.remoteAddress!
    const prior = req.headers['x-forwarded-for']
    const headers: IncomingHttpHeaders = {
      ...req.headers,
      'x-forwarded-for': prior ? `${String(prior)}, ${seen}` : seen,
    }
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        localAddress: '127.0.0.1',
        method: req.method,
        path: req.url,
        headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers)
        answer.pipe(res)
      },
    )
    upstream.on('error', () => res.destroy())
    req.pipe(upstream)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

async function service(t: After, trustProxy: string) {
  const lines: { msg: string; client?: string }[] = []
  const logger = { level: 'info', stream: { write: (line: string) => void lines.push(JSON.parse(line)) } }
  const h = await startHarness(t, { listen: true, env: { TRUST_PROXY: trustProxy }, logger })
  const clients = () => new Set(lines.filter((l) => l.msg === 'request').map((l) => l.client))
  return { h, clients }
}

/** 70 bad-key requests, the i-th with the headers `forged(i)`; the statuses. */
async function guesses(url: string, forged: (i: number) => Record<string, string>, from?: string): Promise<number[]> {
  const statuses: number[] = []
  for (let i = 0; i < 70; i++)
    statuses.push(await get(`${url}/v1/pets`, { authorization: `Bearer ps_test_guess${i}`, ...forged(i) }, from))
  return statuses
}

const LIMITED = [...Array<number>(60).fill(401), ...Array<number>(10).fill(429)]
const rotating = (i: number) => ({ 'x-forwarded-for': `203.0.113.${i}, 198.51.100.7` })

test(
  'TRUST_PROXY=127.0.0.1, a client on 127.0.0.1 writing rotating addresses: ' +
    'limited as one address, the right-most untrusted',
  async (t) => {
    const { h, clients } = await service(t, '127.0.0.1')
    assert.deepEqual(await guesses(h.baseUrl, rotating), LIMITED)
    assert.deepEqual(clients(), new Set(['198.51.100.7']), 'the log names the right-most untrusted address')
    const plain = await service(t, '127.0.0.1')
    assert.deepEqual(await guesses(plain.h.baseUrl, () => ({})), LIMITED, 'exactly as without the header')
    assert.deepEqual(plain.clients(), new Set(['127.0.0.1']))
  },
)

for (const trustProxy of ['127.0.0.1', '127.0.0.1/32, 10.0.0.0/8', '1']) {
  test(
    `TRUST_PROXY=${trustProxy}, through a proxy that appends: ` +
      `forged entries, trusted-looking ones included, change nothing`,
    async (t) => {
      const { h, clients } = await service(t, trustProxy)
      const proxy = await relay(t, h.baseUrl)
      // The client pretends to be others, and to be behind other trusted proxies (10.0.0.1, 127.0.0.1).
      const forged = (i: number) => ({
        'x-forwarded-for': i % 2 ? `203.0.113.${i}, 10.0.0.1` : `198.51.100.${i}, 127.0.0.1`,
      })
      assert.deepEqual(await guesses(proxy, forged, '127.0.0.2'), LIMITED)
      assert.deepEqual(clients(), new Set(['127.0.0.2']), 'the address the proxy saw')
      // Another client behind the same proxy has its own budget.
      assert.equal(await get(`${proxy}/v1/pets`, { authorization: 'Bearer ps_test_other' }, '127.0.0.3'), 401)
    },
  )
}

test('TRUST_PROXY=1 takes exactly one hop from the right: the entry the proxy wrote, not one before it', async (t) => {
  const { h, clients } = await service(t, '1')
  const proxy = await relay(t, h.baseUrl)
  assert.equal(await get(`${proxy}/nowhere`, { 'x-forwarded-for': '203.0.113.1, 198.51.100.2' }, '127.0.0.4'), 404)
  assert.deepEqual(clients(), new Set(['127.0.0.4']))
})
