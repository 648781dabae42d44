// The Redis store keeps the RateLimitStore contract (on a real Redis, TEST_REDIS_URL, under a fresh key prefix),
// and what only a shared store has to show: two instances (two clients) on one Redis see one exact quota, and
// every key it writes expires (a grace minute after its window). Runs in the PostgreSQL + Redis pass; skipped
// with the reason otherwise.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createRedisStore } from '../../../src/modules/limits/redis.store.js'
import { freshRedisPrefix, postgresOnly, postgresOnlyReason, redisStore } from '../../helpers/backend.js'
import { redisServer } from '../../helpers/redis-server.js'
import { runStoreContract } from './store-contract.js'
import { fresh, MINUTE, T0, windows } from './store-contract.common.js'

runStoreContract('redis', (t) => redisStore(t), { skip: postgresOnlyReason() })

test('redis: two instances on one Redis share one quota exactly, even with their requests interleaved', async (t) => {
  if (postgresOnly(t)) return
  const prefix = freshRedisPrefix()
  const [a, b] = [await redisStore(t, prefix), await redisStore(t, prefix)]
  t.after(async () => {
    await a.close()
    await b.close()
  })
  assert.notEqual(a.client, b.client)
  const subject = fresh('account')
  const consume = (store: typeof a) => store.consume({ subject, windows: windows(60, 1000), now: T0 + 5000 })
  const results = await Promise.all(Array.from({ length: 300 }, (_, i) => consume(i % 2 === 0 ? a : b)))
  assert.equal(results.filter((r) => r.admitted).length, 60)
  assert.deepEqual(
    results
      .filter((r) => r.admitted)
      .map((r) => r.windows[0]!.used)
      .sort((x, y) => x - y),
    Array.from({ length: 60 }, (_, i) => i + 1),
  )
  for (const store of [a, b]) {
    assert.deepEqual(
      (await store.usage({ subject, windows: windows(60, 1000), now: T0 + 5000 })).windows.map((w) => w.used),
      [60, 60],
    )
  }

  const key = fresh('key')
  const rule = { subject: key, threshold: 1, durationMs: 10 * MINUTE }
  await a.consume({ subject, windows: windows(60, 1000), now: T0 + 6000, ban: rule })
  const started = await b.consume({ subject, windows: windows(60, 1000), now: T0 + 6000, ban: rule })
  assert.equal(started.banStarted, true, 'refusals seen by two instances add up to one count')
  assert.equal(
    await a.bannedUntil({ subject: key, now: T0 + 7000 }),
    T0 + 6000 + 10 * MINUTE,
    'a ban started on one instance binds on the other',
  )
  assert.equal(await a.unban(key), true)
  assert.equal(
    await b.bannedUntil({ subject: key, now: T0 + 7000 }),
    undefined,
    'and lifting it on one lifts it everywhere',
  )
})

test(
  'redis: every key the store writes expires: ' +
    'counters and refusals a grace minute after their window, bans with the ban',
  async (t) => {
    if (postgresOnly(t)) return
    const prefix = freshRedisPrefix()
    const store = await redisStore(t, prefix)
    t.after(() => store.close())
    const [subject, key] = [fresh('account'), fresh('key')]
    const now = T0 + 45_000
    const rule = { subject: key, threshold: 1, durationMs: 10 * MINUTE }
    for (let i = 0; i < 4; i++) await store.consume({ subject, windows: windows(1, 100), now, ban: rule })
    assert.notEqual(await store.bannedUntil({ subject: key, now }), undefined)

    const keys = await store.client.keys(`${prefix}*`)
    const ttl = async (part: string) => {
      const name = keys.find((k) => k.includes(part))
      assert.ok(name, `a key for ${part} in ${keys.join(', ')}`)
      return store.client.pttl(name)
    }
    // PTTL counts down in real time from what was set: at most the rest of the window plus the grace minute, and
    // (read at once) more than the rest of the window alone.
    const minute = await ttl(`${subject}:minute:`)
    assert.ok(minute > 15_000 && minute <= 15_000 + MINUTE, `minute counter: 15 s left in its window, pttl ${minute}`)
    const day = await ttl(`${subject}:day:`)
    assert.ok(day > 15_000 + MINUTE && day <= 86_400_000 - 45_000 + MINUTE, `day counter: pttl ${day}`)
    const refusals = await ttl(`rf:${key}`)
    assert.ok(refusals > 15_000 && refusals <= 15_000 + MINUTE, `refusal count: pttl ${refusals}`)
    const ban = await ttl(`ban:${key}`)
    assert.ok(ban > 15_000 + MINUTE && ban <= 10 * MINUTE, `ban: pttl ${ban}`)
    for (const name of keys) assert.ok((await store.client.pttl(name)) > 0, `${name} has no expiry`)
  },
)

test(
  'redis: a count made in the last millisecond of a window ' +
    'is still there a moment later, for requests of that window',
  async (t) => {
    if (postgresOnly(t)) return
    const prefix = freshRedisPrefix()
    const store = await redisStore(t, prefix)
    t.after(() => store.close())
    const subject = fresh('account')
    const last = T0 + MINUTE - 1
    assert.equal((await store.consume({ subject, windows: windows(1, 100), now: last })).admitted, true)
    const [counter] = await store.client.keys(`${prefix}rl:${subject}:minute:*`)
    assert.ok(counter)
    // Without the grace the key would live 1 ms (real time): any request stamped `last` that arrives a little
    // later (another instance's clock, a slow network) would find the count gone and be admitted again.
    assert.ok((await store.client.pttl(counter)) > 1_000, 'the counter outlives the end of its window')
    assert.equal((await store.consume({ subject, windows: windows(1, 100), now: last })).admitted, false)
    assert.equal(
      (await store.consume({ subject, windows: windows(1, 100), now: last + 1 })).admitted,
      true,
      'the next window starts from 0',
    )
  },
)

test('redis: the decisions of one turn are one script call, and each request gets its own exact answer', async (t) => {
  if (postgresOnly(t)) return
  // A Redis of its own: INFO commandstats counts every client's calls, and other test files run scripts on the
  // shared one at the same time (CI saw their calls counted here).
  const server = await redisServer(t)
  await server.start()
  const store = createRedisStore({ url: server.url, prefix: freshRedisPrefix(), commandTimeoutMs: 2_000 })
  await store.ready()
  t.after(() => store.close())
  const now = T0 + 5000
  await store.consume({ subject: fresh('account'), windows: windows(10, 100), now }) // the script is loaded
  const scriptCalls = async () => {
    const stats = await store.client.info('commandstats')
    return ['evalsha', 'eval'].reduce(
      (n, cmd) => n + Number(new RegExp(`cmdstat_${cmd}:calls=(\\d+)`).exec(stats)?.[1] ?? 0),
      0,
    )
  }
  const before = await scriptCalls()
  const [small, large, banned, key] = [fresh('account'), fresh('account'), fresh('account'), fresh('key')]
  const rule = { subject: key, threshold: 2, durationMs: 10 * MINUTE }
  const inputs = Array.from({ length: 90 }, (_, i) =>
    i % 3 === 0
      ? { subject: small, windows: windows(10, 100), now }
      : i % 3 === 1
        ? { subject: large, windows: windows(1000, 10_000), now }
        : { subject: banned, windows: windows(1, 100), now, ban: rule },
  )
  const results = await Promise.all(inputs.map((input) => store.consume(input)))
  assert.equal((await scriptCalls()) - before, 1, 'ninety decisions, one call')
  const of = (subject: string) => results.filter((_, i) => inputs[i]!.subject === subject)
  assert.deepEqual(
    of(small).map((r) => r.admitted),
    [...Array(10).fill(true), ...Array(20).fill(false)],
  )
  assert.deepEqual(
    of(small).map((r) => r.windows[0]!.used),
    [...Array.from({ length: 10 }, (_, i) => i + 1), ...Array(20).fill(10)],
  )
  assert.deepEqual(
    of(large).map((r) => r.windows[0]!.used),
    Array.from({ length: 30 }, (_, i) => i + 1),
  )
  // One admitted, two refusals tolerated, the third starts the ban, and the rest find it.
  assert.deepEqual(
    of(banned).map((r) => [r.admitted, r.banStarted ?? false, r.bannedUntil ?? 0]),
    [
      [true, false, 0],
      [false, false, 0],
      [false, false, 0],
      [false, true, now + 10 * MINUTE],
      ...Array(26).fill([false, false, now + 10 * MINUTE]),
    ],
  )
})
