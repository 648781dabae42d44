// The webhook worker's delivery thread (src/main/webhook-sender.ts), run from the build (dist/webhook-sender.mjs, as
// `serve` runs it; `npm run build` first): a request goes out from the thread and its outcome comes back. A thread
// that stops (here one that exits at its first message) hands its requests in flight, and every later one, to the
// in-process client: each is made, none is recorded as a failure of the endpoint's.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { pathToFileURL } from 'node:url'
import { pino } from 'pino'
import { createThreadedSender } from '../../src/main/webhook-sender.js'
import { webhookHttpFrom } from '../../src/main/webhook-http-settings.js'
import { tempDir } from '../helpers/cli.js'
import { repoRoot } from '../helpers/root.js'
import { startReceiver } from '../helpers/webhook-receiver.js'

const settings = { allowed: [], allowLoopback: true, timeoutMs: 10_000, userAgent: 'Petstore-Thread', allowHttp: true }
const inProcess = webhookHttpFrom({ ...settings, userAgent: 'Petstore-InProcess' }).send
const log = pino({ enabled: false })

test('the built thread makes the request and answers with its outcome', async (t) => {
  const receiver = await startReceiver(t)
  const entry = new URL('dist/webhook-sender.mjs', repoRoot)
  const sender = createThreadedSender({ entry, settings, log, inProcess })
  t.after(() => sender.close())
  const sent = await sender.send({ url: receiver.url, headers: { 'webhook-id': 'evt_1' }, body: '{"n":1}' })
  assert.deepEqual([sent.ok, sent.status], [true, 204])
  assert.equal(receiver.received[0]?.headers['user-agent'], 'Petstore-Thread')
  assert.equal(receiver.received[0]?.body, '{"n":1}')
})

test('a thread that stops with requests in flight: they and the later ones are made in process', async (t) => {
  const receiver = await startReceiver(t)
  const { dir } = tempDir(t)
  const crashing = join(dir, 'crashing-thread.mjs')
  writeFileSync(
    crashing,
    "import { parentPort } from 'node:worker_threads'\nparentPort.on('message', () => process.exit(3))\n",
  )
  const sender = createThreadedSender({ entry: pathToFileURL(crashing), settings, log, inProcess })
  t.after(() => sender.close())
  const request = (n: number) => ({ url: receiver.url, headers: {}, body: `{"n":${n}}` })
  const [first, second] = await Promise.all([sender.send(request(1)), sender.send(request(2))])
  assert.deepEqual([first.ok, second.ok], [true, true], 'both made, by the in-process client')
  const later = await sender.send(request(3))
  assert.equal(later.ok, true)
  assert.deepEqual(
    receiver.received.map((r) => [r.body, r.headers['user-agent']]),
    [
      ['{"n":1}', 'Petstore-InProcess'],
      ['{"n":2}', 'Petstore-InProcess'],
      ['{"n":3}', 'Petstore-InProcess'],
    ],
  )
})
