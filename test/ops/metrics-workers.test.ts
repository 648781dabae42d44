// /metrics of `serve --workers 2` (real processes, a private redis-server, a webhook receiver of the test's own):
// one scrape answers for the instance, whichever worker takes it. Counters are summed over the workers; what both
// read from the shared database (outbox, accounts by plan) or both know (build info) is taken once, not doubled;
// Redis is up only while every worker reaches it; each worker's start time is a series of its own, and a worker
// that is started again shows a later one.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { tempDir } from '../helpers/cli.js'
import { redisServer } from '../helpers/redis-server.js'
import { repoRoot } from '../helpers/root.js'
import { pollUntil } from '../helpers/within.js'
import { accountKey, startInstance } from '../scale/support.js'
import { packageInfo } from '../../src/kernel/version.js'
import { parseMetrics, type Sample } from '../helpers/prometheus.js'

/** The revision the build stamped on dist/ (scripts/bundle.mjs), as the served program reports it. */
const BUILT_FROM = (JSON.parse(readFileSync(new URL('dist/build-info.json', repoRoot), 'utf8')) as { revision: string })
  .revision

const series = (samples: Sample[], name: string) => samples.filter((s) => s.name === name)
const one = (samples: Sample[], name: string, labels: Record<string, string> = {}) => {
  const found = series(samples, name).filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))
  assert.equal(found.length, 1, `${name} ${JSON.stringify(labels)}: ${JSON.stringify(found)}`)
  return found[0]!.value
}

const childrenOf = (pid: number) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)

test(
  'serve --workers 2: /metrics merges every series the right way (sums, ' +
    'single reads, per-worker start times, Redis up on all)',
  async (t) => {
    const redis = await redisServer(t)
    await redis.start()
    // The receiver fails the first delivery and holds every later one open: one failure, one message still queued.
    let deliveries = 0
    const held: ServerResponse[] = []
    const receiver = createServer((_req, res) => {
      if (++deliveries === 1) res.writeHead(500).end()
      else held.push(res)
    }).listen(0, '127.0.0.1')
    await once(receiver, 'listening')
    const release = () => held.splice(0).forEach((res) => res.writeHead(500).end())
    t.after(() => {
      release()
      receiver.closeAllConnections()
      receiver.close()
    })

    const { file } = tempDir(t, 'petstore-metrics-workers-')
    const { key } = await accountKey(file, ['--plan', 'enterprise', '--per-minute', '100', '--per-day', '5'])
    const { key: proKey } = await accountKey(file, ['--plan', 'pro'])
    const { origin, process: primary } = await startInstance(
      t,
      {
        DATABASE_URL: file,
        REDIS_URL: redis.url,
        REDIS_TIMEOUT_MS: '1000',
        MESSAGES_SINK: 'webhook',
        MESSAGES_WEBHOOK_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
        MESSAGES_WEBHOOK_SECRET: `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`,
        MESSAGES_WEBHOOK_MAX_ATTEMPTS: '1',
        MESSAGES_WEBHOOK_TIMEOUT_MS: '60000',
        MESSAGES_POLL_MS: '50',
      },
      ['--workers', '2'],
    )
    const [, messagesOrigin] = await primary.waitFor(/Messages interface at (http:\/\/\S+)/)
    const get = async (url: string, init: RequestInit = {}) => {
      const response = await fetch(url, {
        ...init,
        headers: { connection: 'close', ...init.headers },
        signal: AbortSignal.timeout(10_000),
      })
      return { status: response.status, text: await response.text() }
    }
    const scrape = async () => {
      const r = await get(`${origin}/metrics`)
      assert.equal(r.status, 200, r.text)
      return parseMetrics(r.text)
    }

    // 10 requests of a key whose account may make 5 a day, each on a connection of its own (both workers answer).
    const statuses: number[] = []
    for (let i = 0; i < 10; i++)
      statuses.push((await get(`${origin}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })).status)
    // Five 200s then 429s, unless a busy machine made a worker fall back to its own share for a moment: whatever
    // the split, each 429 is one refusal in the scrape.
    const refusals = statuses.filter((s) => s === 429).length
    assert.deepEqual([...new Set(statuses)].sort(), [200, 429], String(statuses))
    for (const message of ['first', 'second']) {
      const r = await get(`${messagesOrigin}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${proKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message }),
      })
      assert.equal(r.status, 202, r.text)
    }
    await pollUntil('one failed delivery and one held', async () => (deliveries >= 2 ? true : undefined))

    // The failed attempt is written a moment after the receiver answered it: wait for the outbox to say so (summed
    // over two workers it would stay at 2).
    await pollUntil('the outbox at 1', async () =>
      one(await scrape(), 'petstore_messages_outbox_depth') === 1 ? true : undefined,
    )
    let starts: number[] = []
    for (let i = 0; i < 4; i++) {
      const samples = await scrape()
      const what = `scrape ${i + 1}`
      assert.equal(
        one(samples, 'petstore_build_info', {
          version: packageInfo().version,
          revision: BUILT_FROM,
          node: process.version,
        }),
        1,
        `${what}: not summed`,
      )
      const refused = series(samples, 'petstore_requests_refused_total').filter((s) => s.labels.plan === 'enterprise')
      assert.equal(
        refused.reduce((sum, s) => sum + s.value, 0),
        refusals,
        `${what}: every worker's refusals, summed`,
      )
      assert.equal(one(samples, 'petstore_message_delivery_failures_total', { sink: 'webhook' }), 1, what)
      assert.equal(one(samples, 'petstore_messages_outbox_depth'), 1, `${what}: read by both workers, counted once`)
      assert.ok(one(samples, 'petstore_messages_outbox_oldest_age_seconds') < 60, what)
      assert.deepEqual(
        series(samples, 'petstore_accounts')
          .map((s) => [s.labels.plan, s.value])
          .sort(),
        [
          ['business', 0],
          ['enterprise', 1],
          ['free', 0],
          ['pro', 1],
        ],
        `${what}: read by both workers, counted once`,
      )
      assert.equal(one(samples, 'petstore_redis_up'), 1, what)
      const workers = series(samples, 'petstore_worker_start_time_seconds')
      assert.deepEqual(workers.map((s) => s.labels.worker).sort(), ['0', '1'], what)
      starts = ['0', '1'].map((w) => one(samples, 'petstore_worker_start_time_seconds', { worker: w }))
      for (const start of starts)
        assert.ok(start > Date.now() / 1000 - 120 && start <= Date.now() / 1000, `${what}: start ${start}`)
    }

    // A worker crashes and is started again in its slot: that slot's start time moves on, the other's does not.
    const [victim] = childrenOf(primary.pid)
    process.kill(victim!, 'SIGKILL')
    // Scrape only once the primary has seen the exit: node:cluster's round-robin hands a connection that arrives in
    // between to the dead worker, and that connection is never answered (docs/operators/scaling.md).
    await primary.waitFor(/worker \d+ exited \(SIGKILL\)/)
    const later = await pollUntil('a later start time in one slot', async () => {
      const samples = await scrape().catch(() => undefined)
      if (!samples || series(samples, 'petstore_worker_start_time_seconds').length !== 2) return undefined
      const now = ['0', '1'].map((w) => one(samples, 'petstore_worker_start_time_seconds', { worker: w }))
      return now.some((s, i) => s > starts[i]!) ? now : undefined
    })
    assert.equal(later.filter((s, i) => s === starts[i]).length, 1, `one slot unchanged: ${starts} → ${later}`)

    await redis.stop()
    await pollUntil('petstore_redis_up 0', async () =>
      one(await scrape(), 'petstore_redis_up') === 0 ? true : undefined,
    )
    release()
    assert.deepEqual(await primary.stop(), { code: 0, signal: null }, primary.stderr())
  },
)
