// Redis outages, on a private redis-server that the test kills and restarts: requests keep being answered at
// once, each instance limits alone at quota ÷ RATE_LIMIT_FALLBACK_DIVISOR, one warning is logged per outage
// (and nothing else is printed), and Redis is used again when it answers, without a restart. Runs in the
// PostgreSQL + Redis pass.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createFallbackStore } from '../../../src/modules/limits/fallback.store.js'
import { createMemoryStore } from '../../../src/modules/limits/memory.store.js'
import type { ConsumeResult } from '../../../src/modules/limits/rate-limit.store.js'
import { createRedisStore } from '../../../src/modules/limits/redis.store.js'
import { freshRedisPrefix, postgresOnly } from '../../helpers/backend.js'
import { captureConsoleErrors, captureLog, OUTAGE, RECOVERY } from '../../helpers/capture-log.js'
import { redisServer } from '../../helpers/redis-server.js'
import { pollUntil, within } from '../../helpers/within.js'
import { fresh, T0, windows } from './store-contract.common.js'

/** One service instance's limiter store: Redis (connected, as at start) with the in-memory fallback, divisor 3. */
async function instance(url: string, prefix: string) {
  const { log, count } = captureLog()
  const primary = createRedisStore({ url, prefix })
  await primary.ready()
  let reconnects = 0
  primary.client.on('reconnecting', () => void reconnects++)
  const store = createFallbackStore({ primary, fallback: createMemoryStore(), divisor: 3, log })
  return { store, count, reconnects: () => reconnects }
}

const QUOTA = windows(60, 1000)

test(
  'Redis down: each instance limits alone at quota ÷ 3 and warns once; ' +
    'Redis back: one shared quota again, said once',
  async (t) => {
    if (postgresOnly(t)) return
    const printed = captureConsoleErrors(t)
    const redis = await redisServer(t)
    await redis.start()
    const prefix = freshRedisPrefix()
    const [a, b] = [await instance(redis.url, prefix), await instance(redis.url, prefix)]
    t.after(async () => {
      await a.store.close()
      await b.store.close()
    })
    const consume = (i: { store: typeof a.store }, subject: string, now = T0 + 5_000): Promise<ConsumeResult> =>
      within(i.store.consume({ subject, windows: QUOTA, now }), 'consume')

    // Redis up: two instances, one quota of 60.
    const shared = fresh('account')
    const before = await Promise.all(Array.from({ length: 70 }, (_, i) => consume(i % 2 ? a : b, shared)))
    assert.equal(before.filter((r) => r.admitted).length, 60)
    assert.ok(before.every((r) => r.windows[0]!.limit === 60))
    assert.equal(a.count(OUTAGE) + b.count(OUTAGE), 0)

    await redis.stop()
    const alone = fresh('account')
    for (const i of [a, b]) {
      const results: ConsumeResult[] = []
      for (let n = 0; n < 25; n++) results.push(await consume(i, alone))
      assert.equal(results.filter((r) => r.admitted).length, 20, 'each instance admits 60 ÷ 3 on its own')
      assert.deepEqual(
        results[0]!.windows.map((w) => [w.limit, w.used]),
        [
          [20, 1],
          [333, 1],
        ],
        'the quota of each window ÷ 3',
      )
      assert.deepEqual(
        results.slice(20).map((r) => r.admitted),
        [false, false, false, false, false],
      )
      assert.equal(i.store.degraded(), true)
      assert.equal(i.count(OUTAGE), 1, 'one warning for the outage, however many requests')
    }
    assert.equal((await consume(a, shared)).windows[0]!.limit, 20, 'every subject is limited per instance meanwhile')
    // Let the clients try (and fail) to reconnect at least once while Redis is down, as in any real outage.
    await pollUntil('a failed reconnection attempt', async () =>
      a.reconnects() >= 2 && b.reconnects() >= 2 ? true : undefined,
    )
    for (let n = 0; n < 5; n++) assert.equal((await consume(a, alone)).admitted, false)
    assert.equal(a.count(OUTAGE), 1, 'still one warning')

    await redis.start()
    // Both clients reconnect in the background (about once a second); then a count is shared again.
    await pollUntil('both instances on Redis again', async () => {
      const probe = fresh('account')
      await consume(a, probe)
      const second = await consume(b, probe)
      return second.windows[0]!.used === 2 && second.windows[0]!.limit === 60 ? true : undefined
    })
    for (const i of [a, b]) {
      assert.equal(i.store.degraded(), false)
      assert.equal(i.count(RECOVERY), 1, 'its return is logged once')
      assert.equal(i.count(OUTAGE), 1, 'and no new outage was reported')
    }
    const after = fresh('account')
    const results = await Promise.all(Array.from({ length: 70 }, (_, i) => consume(i % 2 ? a : b, after)))
    assert.equal(results.filter((r) => r.admitted).length, 60, 'one exact quota across both instances again')
    assert.deepEqual(
      printed.filter((line) => /ioredis|ECONNREFUSED/.test(line)),
      [],
      'the outage is reported in the log only, not printed',
    )
  },
)

test('a second outage is warned about again, once', async (t) => {
  if (postgresOnly(t)) return
  const redis = await redisServer(t)
  await redis.start()
  const i = await instance(redis.url, freshRedisPrefix())
  t.after(() => i.store.close())
  const consume = () => within(i.store.consume({ subject: fresh('account'), windows: QUOTA, now: T0 }), 'consume')
  for (let outage = 1; outage <= 2; outage++) {
    await redis.stop()
    for (let n = 0; n < 5; n++) assert.equal((await consume()).windows[0]!.limit, 20)
    assert.equal(i.count(OUTAGE), outage)
    await redis.start()
    await pollUntil('back on Redis', async () => ((await consume()).windows[0]!.limit === 60 ? true : undefined))
    assert.equal(i.count(RECOVERY), outage)
  }
})

test(
  'Redis lost mid-window: each instance goes on from what ' + 'it admitted in the window; the worst case is measured',
  async (t) => {
    if (postgresOnly(t)) return
    const redis = await redisServer(t)
    await redis.start()
    const prefix = freshRedisPrefix()
    const instances = [
      await instance(redis.url, prefix),
      await instance(redis.url, prefix),
      await instance(redis.url, prefix),
    ]
    t.after(async () => {
      for (const i of instances) await i.store.close()
    })
    const consume = (i: (typeof instances)[number], subject: string) =>
      within(i.store.consume({ subject, windows: QUOTA, now: T0 + 5_000 }), 'consume')
    const admitted = async (i: (typeof instances)[number], subject: string, n: number) => {
      let count = 0
      for (let k = 0; k < n; k++) if ((await consume(i, subject)).admitted) count++
      return count
    }
    // Even: a round-robin balancer spread 30 of the 60 over the three (10 each) before Redis was lost.
    const even = fresh('account')
    for (let k = 0; k < 30; k++) assert.equal((await consume(instances[k % 3]!, even)).admitted, true)
    // Skewed, the worst case: one instance admitted the whole quota before Redis was lost.
    const skewed = fresh('account')
    assert.equal(await admitted(instances[0]!, skewed, 60), 60)

    await redis.stop()
    const evenAfter = await Promise.all(instances.map((i) => admitted(i, even, 30)))
    assert.deepEqual(evenAfter, [10, 10, 10], 'each goes on from its 10 to its share of 20: the quota (60) holds')
    const skewedAfter = await Promise.all(instances.map((i) => admitted(i, skewed, 30)))
    assert.deepEqual(skewedAfter, [0, 20, 20], 'the one that admitted 60 admits nothing more; the others their share')
    // Worst case over the window: 60 + 2 × 20 = 100, i.e. (2 − 1/N) × the quota with N = divisor = 3 instances
    // (from zero, as before, it was 60 + 3 × 20 = 2 × the quota).
    assert.equal(60 + skewedAfter.reduce((a, b) => a + b, 0), 100)
  },
)
