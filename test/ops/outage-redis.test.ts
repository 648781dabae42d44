// A Redis outage in the log: a private redis-server killed under the rate-limit store (as `serve` builds it) while
// requests keep being counted, then started again. The log has one warning when it starts, one line when Redis
// answers again, and no stack trace in between, however many requests and background probes failed.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { pino } from 'pino'
import { loadConfig } from '../../src/kernel/config.js'
import { createRateLimitStore } from '../../src/modules/limits/store-from-config.js'
import { freshRedisPrefix } from '../helpers/backend.js'
import { redisServer } from '../helpers/redis-server.js'
import { pollUntil } from '../helpers/within.js'

type Line = Record<string, unknown> & { level: number; msg: string }

test('Redis killed and started again: one warning, one line at the end, no stack', async (t) => {
  const redis = await redisServer(t)
  await redis.start()
  const raw: string[] = []
  const log = pino({ level: 'info' }, { write: (line: string) => void raw.push(line) })
  const config = loadConfig({
    LOG_LEVEL: 'info',
    REDIS_URL: redis.url,
    REDIS_PREFIX: freshRedisPrefix(),
    REDIS_TIMEOUT_MS: '500',
  })
  const store = await createRateLimitStore(config, log)
  t.after(() => store.close())
  const windows = [{ name: 'minute', limit: 1_000, seconds: 60 }]
  const consume = () => store.consume({ subject: 'acct_outage', windows, now: Date.now() })
  assert.equal((await consume()).admitted, true)

  await redis.stop()
  // Requests go on (limited per process), and the store probes Redis in the background about once a second.
  for (let i = 0; i < 50; i++) assert.equal((await consume()).admitted, true)
  // Fixed wait: the background probes cannot be seen from outside the store (a failed probe is only counted, in the
  // line that ends the outage), and the count must include one. The first probe is due 100 ms after the outage began
  // (FIRST_PROBE_MS in fallback.store.ts) and fails at once (no offline queue); this timer is due well after it, and
  // timers fire in the order they are due, so a stalled event loop delays both and still runs the probe first.
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  await redis.start()
  const lines = () => raw.map((l) => JSON.parse(l) as Line)
  await pollUntil(
    'the end of the outage in the log',
    async () => (lines().some((l) => /reachable again/.test(l.msg)) ? true : undefined),
    20_000,
    50,
  )

  const said = lines()
  assert.deepEqual(
    said.map((l) => [l.level, l.dependency, l.msg.replace(/\(.*\)/, '(…)')]),
    [
      [
        40,
        'rate-limit store',
        'rate-limit store unreachable (…): limiting per process at 1/3 of each quota until it is back',
      ],
      [30, 'rate-limit store', 'rate-limit store reachable again: limits are shared across instances again'],
    ],
  )
  assert.ok((said[1]!.failedCalls as number) >= 2, `the probes that failed are counted: ${raw[1]}`)
  assert.ok(!raw.join('').includes('"stack"'), 'a stack trace in the log')
})
