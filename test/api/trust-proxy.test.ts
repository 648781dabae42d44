// TRUST_PROXY: behind a load balancer the client is the address the trusted proxies forwarded, for the
// per-address limits, the request log and the /metrics guard; with it off (the default) X-Forwarded-For changes
// nothing, so no client can pose as another address or as loopback.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ConfigError, loadConfig } from '../../src/kernel/config.js'
import { startHarness } from '../helpers/harness.js'

type Inject = { remoteAddress: string; forwardedFor?: string; url?: string }

async function harness(t: Parameters<typeof startHarness>[0], trustProxy?: string) {
  const lines: { msg: string; client?: string; path?: string }[] = []
  const logger = { level: 'info', stream: { write: (line: string) => void lines.push(JSON.parse(line)) } }
  const h = await startHarness(t, {
    env: { RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '2', ...(trustProxy ? { TRUST_PROXY: trustProxy } : {}) },
    logger,
  })
  const send = ({ remoteAddress, forwardedFor, url = '/nowhere' }: Inject) =>
    h.app.inject({ url, remoteAddress, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} })
  /** The remaining per-address quota each request saw (`429` once it is used up). */
  const remaining = async (...requests: Inject[]) => {
    const seen: string[] = []
    for (const r of requests) {
      const response = await send(r)
      seen.push(response.statusCode === 429 ? '429' : String(response.headers['x-ratelimit-remaining']))
    }
    return seen
  }
  const clients = () => lines.filter((l) => l.msg === 'request' && l.path === '/nowhere').map((l) => l.client)
  return { send, remaining, clients }
}

test(
  'TRUST_PROXY off (default): X-Forwarded-For changes nothing: ' +
    'one bucket per connection address, loopback stays loopback',
  async (t) => {
    const { send, remaining, clients } = await harness(t)
    const viaBalancer = (client: string) => ({ remoteAddress: '10.0.0.5', forwardedFor: client })
    assert.deepEqual(
      await remaining(viaBalancer('203.0.113.1'), viaBalancer('203.0.113.2'), viaBalancer('203.0.113.3')),
      ['1', '0', '429'],
    )
    assert.deepEqual(clients(), ['10.0.0.5', '10.0.0.5', '10.0.0.5'], 'the log names the connection')
    const metrics = await send({ remoteAddress: '10.0.0.5', forwardedFor: '127.0.0.1', url: '/metrics' })
    assert.equal(metrics.statusCode, 404, 'a forwarded "127.0.0.1" does not open the loopback-only /metrics')
  },
)

test(
  'TRUST_PROXY=1 (one proxy in front): each client behind it has ' +
    'its own bucket and log address; /metrics sees the real client',
  async (t) => {
    const { send, remaining, clients } = await harness(t, '1')
    const viaRelay = (client: string, url?: string) => ({ remoteAddress: '127.0.0.1', forwardedFor: client, url })
    assert.deepEqual(await remaining(viaRelay('203.0.113.1'), viaRelay('203.0.113.1'), viaRelay('203.0.113.1')), [
      '1',
      '0',
      '429',
    ])
    assert.deepEqual(
      await remaining(viaRelay('203.0.113.2'), viaRelay('203.0.113.2')),
      ['1', '0'],
      'another client behind the same proxy',
    )
    assert.deepEqual(clients().slice(0, 4), ['203.0.113.1', '203.0.113.1', '203.0.113.1', '203.0.113.2'])
    // A relay on this machine no longer makes everyone look like loopback.
    assert.equal((await send(viaRelay('198.51.100.7', '/metrics'))).statusCode, 404)
    assert.equal(
      (await send({ remoteAddress: '127.0.0.1', url: '/metrics' })).statusCode,
      200,
      'loopback itself, not forwarded',
    )
    // One hop only: what a client put in front of the header itself is not believed.
    assert.deepEqual(await remaining(viaRelay('127.0.0.1, 203.0.113.3')), ['1'])
    assert.equal((await send(viaRelay('127.0.0.1, 198.51.100.8', '/metrics'))).statusCode, 404)
  },
)

test('TRUST_PROXY as addresses/CIDRs: believed only from those proxies', async (t) => {
  const { remaining } = await harness(t, '10.0.0.0/8, ::1')
  assert.deepEqual(
    await remaining(
      { remoteAddress: '10.1.2.3', forwardedFor: '203.0.113.1' },
      { remoteAddress: '10.9.9.9', forwardedFor: '203.0.113.1' },
      { remoteAddress: '10.1.2.3', forwardedFor: '203.0.113.2' },
    ),
    ['1', '0', '1'],
    'two proxies of the range forward one client: one bucket; another client: its own',
  )
  assert.deepEqual(
    await remaining(
      { remoteAddress: '192.0.2.1', forwardedFor: '203.0.113.2' },
      { remoteAddress: '192.0.2.1', forwardedFor: '203.0.113.9' },
    ),
    ['1', '0'],
    'from an address outside the list the header is ignored: the connection is the client',
  )
})

test('TRUST_PROXY values: false, a hop count, addresses and CIDRs; anything else stops the start naming it', () => {
  assert.equal(loadConfig({}).trustProxy, false)
  assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2)
  assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8,127.0.0.1, fd00::/8' }).trustProxy, [
    '10.0.0.0/8',
    '127.0.0.1',
    'fd00::/8',
  ])
  for (const bad of ['true', '0', '10.0.0.0/33', 'proxy.internal', '10.0.0.1/8/1', '-1']) {
    assert.throws(
      () => loadConfig({ TRUST_PROXY: bad }),
      (e: unknown) => e instanceof ConfigError && /TRUST_PROXY/.test(e.message),
      bad,
    )
  }
})
