// The ban part of the RateLimitStore contract (see store-contract.ts): more refusals than the threshold within
// one window of the first policy ban the ban subject; bannedUntil() reports it, unban() lifts it; `banStarted`
// marks the one request that started a ban (the limiter counts bans with it), even among concurrent ones.
import assert from 'node:assert/strict'
import type { BanRule } from '../../../src/modules/limits/rate-limit.store.js'
import { fresh, MINUTE, T0, windows, type Register, type Setup } from './store-contract.common.js'

export function runBanContract(setup: Setup, test: Register): void {
  const banRule = (subject: string): BanRule => ({ subject, threshold: 2, durationMs: 10 * MINUTE })

  test('ban: more refusals than the threshold in one window ban the ban subject until now + duration', async (t) => {
    const store = await setup(t)
    const [subject, key] = [fresh('account'), fresh('key')]
    const consume = (now: number) => store.consume({ subject, windows: windows(1, 100), now, ban: banRule(key) })
    const admitted = await consume(T0)
    assert.equal(admitted.admitted, true)
    assert.notEqual(admitted.banStarted, true)
    for (let i = 0; i < 2; i++) {
      const r = await consume(T0 + 1000)
      assert.equal(r.admitted, false)
      assert.equal(r.bannedUntil, undefined, `refusal ${i + 1} is within the threshold`)
      assert.notEqual(r.banStarted, true, `refusal ${i + 1} starts no ban`)
    }
    assert.equal(await store.bannedUntil({ subject: key, now: T0 + 1000 }), undefined)
    const third = await consume(T0 + 2000)
    assert.equal(third.admitted, false)
    assert.equal(third.bannedUntil, T0 + 2000 + 10 * MINUTE)
    assert.equal(third.banStarted, true, 'the refusal past the threshold starts the ban')
    assert.equal(await store.bannedUntil({ subject: key, now: T0 + 3000 }), T0 + 2000 + 10 * MINUTE)

    const during = await consume(T0 + 3000)
    assert.equal(during.bannedUntil, T0 + 2000 + 10 * MINUTE)
    assert.notEqual(during.banStarted, true, 'a request refused by the ban in force starts nothing')
    const later = await consume(T0 + 5 * MINUTE)
    assert.equal(later.admitted, false, 'still banned in a later minute with quota free')
    assert.equal(later.bannedUntil, T0 + 2000 + 10 * MINUTE)
    assert.notEqual(later.banStarted, true)
    assert.equal(
      (await store.usage({ subject, windows: windows(1, 100), now: T0 + 5 * MINUTE })).windows[0]!.used,
      0,
      'a banned request consumes nothing',
    )

    const expired = T0 + 2000 + 10 * MINUTE
    assert.equal(await store.bannedUntil({ subject: key, now: expired }), undefined)
    const after = await consume(expired)
    assert.equal(after.admitted, true)
    assert.equal(after.bannedUntil, undefined)
    assert.notEqual(after.banStarted, true)
  })

  test('ban: among concurrent refusals exactly one starts the ban; the threshold many before it do not', async (t) => {
    const store = await setup(t)
    const [subject, key] = [fresh('account'), fresh('key')]
    const rule: BanRule = { subject: key, threshold: 5, durationMs: 10 * MINUTE }
    assert.equal((await store.consume({ subject, windows: windows(1, 100), now: T0, ban: rule })).admitted, true)
    const results = await Promise.all(
      Array.from({ length: 50 }, () => store.consume({ subject, windows: windows(1, 100), now: T0 + 1000, ban: rule })),
    )
    assert.equal(results.filter((r) => r.admitted).length, 0)
    assert.equal(
      results.filter((r) => r.bannedUntil === undefined).length,
      5,
      'the threshold many refusals are plain refusals',
    )
    const started = results.filter((r) => r.banStarted === true)
    assert.equal(started.length, 1, 'one request starts the ban')
    assert.equal(started[0]!.bannedUntil, T0 + 1000 + 10 * MINUTE)
    assert.equal(
      results.filter((r) => r.bannedUntil === T0 + 1000 + 10 * MINUTE).length,
      45,
      'the rest are refused by that one ban',
    )
    assert.equal(await store.bannedUntil({ subject: key, now: T0 + 2000 }), T0 + 1000 + 10 * MINUTE)
  })

  test(
    'ban: refusals count per window of the first policy; ' + 'the same number spread over two windows bans nobody',
    async (t) => {
      const store = await setup(t)
      const [subject, key] = [fresh('account'), fresh('key')]
      const consume = (now: number) => store.consume({ subject, windows: windows(1, 100), now, ban: banRule(key) })
      for (const start of [T0, T0 + MINUTE]) {
        assert.equal((await consume(start)).admitted, true)
        for (let i = 0; i < 2; i++) assert.equal((await consume(start + 1000)).bannedUntil, undefined)
      }
      assert.equal(await store.bannedUntil({ subject: key, now: T0 + MINUTE + 2000 }), undefined)
    },
  )

  test(
    'ban: it binds the ban subject only; ' + 'another ban subject of the same counted subject is just limited',
    async (t) => {
      const store = await setup(t)
      const [subject, banned, other] = [fresh('account'), fresh('key'), fresh('key')]
      await store.consume({ subject, windows: windows(1, 100), now: T0, ban: banRule(banned) })
      for (let i = 0; i < 3; i++)
        await store.consume({ subject, windows: windows(1, 100), now: T0, ban: banRule(banned) })
      assert.notEqual(await store.bannedUntil({ subject: banned, now: T0 }), undefined)
      assert.equal(await store.bannedUntil({ subject: other, now: T0 }), undefined)
      const next = await store.consume({ subject, windows: windows(1, 100), now: T0 + MINUTE, ban: banRule(other) })
      assert.equal(next.admitted, true)
      assert.equal(next.bannedUntil, undefined)
    },
  )

  test('unban() lifts a ban in force (true) and reports false when there is none', async (t) => {
    const store = await setup(t)
    const [subject, key] = [fresh('account'), fresh('key')]
    const consume = (now: number) => store.consume({ subject, windows: windows(1, 100), now, ban: banRule(key) })
    await consume(T0)
    for (let i = 0; i < 3; i++) await consume(T0)
    assert.equal(await store.bannedUntil({ subject: key, now: T0 }), T0 + 10 * MINUTE)
    assert.equal(await store.unban(key), true)
    assert.equal(await store.bannedUntil({ subject: key, now: T0 }), undefined)
    assert.equal(await store.unban(key), false)
    assert.equal(await store.unban(fresh('key')), false)
    const next = await consume(T0 + MINUTE)
    assert.equal(next.admitted, true, 'admitted once the quota allows')
    assert.equal(next.bannedUntil, undefined)
  })

  test('unban() also forgets the refusals counted so far: a new ban needs more than the threshold again', async (t) => {
    const store = await setup(t)
    const [subject, key] = [fresh('account'), fresh('key')]
    const consume = () => store.consume({ subject, windows: windows(1, 100), now: T0 + 1000, ban: banRule(key) })
    await consume()
    for (let i = 0; i < 3; i++) await consume()
    assert.equal(await store.unban(key), true)
    for (let i = 0; i < 2; i++) {
      const r = await consume()
      assert.equal(r.bannedUntil, undefined, `refusal ${i + 1} after the unban is within the threshold again`)
      assert.notEqual(r.banStarted, true)
    }
    const again = await consume()
    assert.equal(again.banStarted, true, 'the refusal past the threshold starts a new ban')
    assert.equal(again.bannedUntil, T0 + 1000 + 10 * MINUTE)
  })
}
