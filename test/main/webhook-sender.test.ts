// The webhook worker's delivery thread (src/main/webhook-sender.ts), run from the build (dist/webhook-sender.mjs, as
// `serve` runs it): a request goes out from the thread and its outcome comes back; a thread stopped with a request in
// flight answers it as a network failure (the worker tries it again on its schedule), and the next request starts a
// new thread.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { pino } from 'pino'
import { createThreadedSender } from '../../src/main/webhook-sender.js'
import { repoRoot } from '../helpers/root.js'
import { startReceiver } from '../helpers/webhook-receiver.js'

const settings = { allowed: [], allowLoopback: true, timeoutMs: 10_000, userAgent: 'Petstore-Test', allowHttp: true }

test('the thread delivers; stopped mid-request it fails that attempt, and the next one starts it again', async (t) => {
  const receiver = await startReceiver(t)
  const entry = new URL('dist/webhook-sender.mjs', repoRoot)
  const sender = createThreadedSender({ entry, settings, log: pino({ enabled: false }) })
  t.after(() => sender.close())

  const sent = await sender.send({ url: receiver.url, headers: { 'webhook-id': 'evt_1' }, body: '{"n":1}' })
  assert.deepEqual([sent.ok, sent.status], [true, 204])
  assert.equal(receiver.received[0]?.headers['user-agent'], 'Petstore-Test')
  assert.equal(receiver.received[0]?.body, '{"n":1}')

  // A receiver that takes the request and never answers: it is in flight when the thread stops.
  const silent = createServer(() => undefined)
  silent.listen(0, '127.0.0.1')
  await once(silent, 'listening')
  t.after(() => {
    silent.closeAllConnections()
    silent.close()
  })
  const arrived = once(silent, 'request')
  const inFlight = sender.send({
    url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/hooks`,
    headers: {},
    body: '{}',
  })
  await arrived
  await sender.close()
  const lost = await inFlight
  assert.deepEqual([lost.ok, lost.errorClass], [false, 'network'])

  const again = await sender.send({ url: receiver.url, headers: {}, body: '{"n":2}' })
  assert.deepEqual([again.ok, again.status], [true, 204])
  assert.equal(receiver.received.length, 2)
})
