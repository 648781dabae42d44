// Limits when the CPU is busy: a Redis that answers is never taken for a down one because this process (or the
// machine) was too busy to read its answer within REDIS_TIMEOUT_MS. A burst of 100 parallel requests of one free
// key (60 a minute) over real HTTP, with the default REDIS_TIMEOUT_MS (50 ms) and a private redis-server, while
// busy-loop processes keep every CPU saturated and our own event loop is blocked in a few places: exactly 60 are
// admitted and the README's ban rule follows (30 refusals, then the next refused request starts the ban), all
// decided in Redis (the per-process fallback would admit 20 and ban early). Both backends.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { availableParallelism } from 'node:os'
import { test } from 'node:test'
import { keyEnvironment } from '../../../src/modules/accounts/api-keys.js'
import { appWithServices } from '../../helpers/app-with-services.js'
import { createManualClock } from '../../../src/kernel/clock.js'
import { loadConfig } from '../../../src/kernel/config.js'
import { createRateLimitStore } from '../../../src/modules/limits/store-from-config.js'
import { testActor } from '../../helpers/actors.js'
import { freshRedisPrefix, testBackend } from '../../helpers/backend.js'
import { captureLog, OUTAGE } from '../../helpers/capture-log.js'
import { redisServer } from '../../helpers/redis-server.js'
import { within } from '../../helpers/within.js'

type After = { after: (fn: () => Promise<void> | void) => void }

/** `n` processes spinning forever (killed after the test): the machine's CPUs stay saturated. */
async function saturateCpus(t: After, n: number): Promise<void> {
  const children = Array.from({ length: n }, () =>
    spawn(process.execPath, ['-e', 'process.stdout.write("spinning\\n"); for (;;) {}'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  )
  t.after(() => children.forEach((c) => c.kill('SIGKILL')))
  await Promise.all(children.map((c) => new Promise((resolve) => c.stdout.once('data', resolve))))
}

/** Keeps this process's event loop from running anything else for `ms` (as a long synchronous task would). */
function blockEventLoop(ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until) {
    /* spinning */
  }
}

async function startListening(t: After) {
  const redis = await redisServer(t)
  await redis.start()
  const backend = await testBackend(t)
  // The default REDIS_TIMEOUT_MS (50 ms): what production runs with.
  const config = loadConfig(
    { LOG_LEVEL: 'silent', REDIS_URL: redis.url, REDIS_PREFIX: freshRedisPrefix() },
    { databaseUrl: backend.url },
  )
  assert.equal(config.redisTimeoutMs, 50)
  const { log, count } = captureLog()
  const store = await createRateLimitStore(config, log)
  const clock = createManualClock(new Date('2027-01-01T00:00:05Z'))
  const h = backend.handle
  const { app, services } = await appWithServices({
    config,
    db: h.db,
    pool: h.pool,
    reads: h.reads,
    engine: h.engine,
    clock,
    rateLimitStore: store,
    logger: false,
  })
  t.after(async () => {
    await app.close()
    await services.close()
    await store.close()
    await backend.rateLimitStore?.close()
    await h.close()
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no TCP address')
  const account = await services.accounts.createAccount({ actor: testActor, name: 'burst', plan: 'free' })
  const { key } = await services.accounts.createApiKey({
    actor: testActor,
    accountId: account.id,
    environment: keyEnvironment(config.environment),
  })
  return { origin: `http://127.0.0.1:${address.port}`, key, outages: () => count(OUTAGE), redis }
}

/** Sends `n` GET /v1/pets at once, each on its own connection; tallies status and error code. */
async function burst(origin: string, key: string, n: number): Promise<Record<string, number>> {
  const tally: Record<string, number> = {}
  await Promise.all(
    Array.from({ length: n }, async () => {
      const response = await fetch(`${origin}/v1/pets`, {
        headers: { authorization: `Bearer ${key}`, connection: 'close' },
      })
      const body = (await response.json()) as { code?: string }
      const outcome = response.status === 200 ? '200' : `${response.status} ${body.code}`
      tally[outcome] = (tally[outcome] ?? 0) + 1
    }),
  )
  return tally
}

const README_RULE = { '200': 60, '429 rate_limit_exceeded': 30, '429 temporarily_banned': 10 }

test('100 parallel requests of a free key with Redis up: exactly 60 admitted, then the ban rule', async (t) => {
  const { origin, key, outages } = await startListening(t)
  assert.deepEqual(await burst(origin, key, 100), README_RULE)
  assert.equal(outages(), 0, 'Redis was never taken for down')
})

test(
  'the same while other processes saturate every CPU' + ' and our own event loop is blocked in a few places',
  async (t) => {
    const { origin, key, outages } = await startListening(t)
    await saturateCpus(t, availableParallelism() + 1)
    // Our event loop stalls (200 ms, 120 ms, 80 ms) while the burst's answers from Redis are on their way.
    const stalls = [
      [1, 200],
      [15, 120],
      [40, 80],
    ].map(([at, ms]) => setTimeout(() => blockEventLoop(ms!), at))
    const sent = burst(origin, key, 100)
    blockEventLoop(60)
    const tally = await sent
    stalls.forEach(clearTimeout)
    assert.deepEqual(tally, README_RULE)
    assert.equal(outages(), 0, 'Redis was never taken for down')
  },
)

test(
  'a silent Redis (SIGSTOP, connections open) is still told apart while this process is busy: ' +
    'the fallback answers, one outage',
  async (t) => {
    const { origin, key, outages, redis } = await startListening(t)
    redis.pause()
    t.after(() => {
      try {
        redis.resume()
      } catch {}
    })
    await saturateCpus(t, availableParallelism() + 1)
    const stalls = [1, 30].map((at) => setTimeout(() => blockEventLoop(150), at))
    // Without a bound on the wait the requests would never be answered (no timer of ioredis's is left).
    const tally = await within(burst(origin, key, 30), 'the burst while Redis is paused', 60_000)
    stalls.forEach(clearTimeout)
    assert.deepEqual(tally, { '200': 20, '429 rate_limit_exceeded': 10 }, 'the per-process fallback: 60 ÷ 3')
    assert.equal(outages(), 1)
  },
)
