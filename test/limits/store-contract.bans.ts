// The ban part of the RateLimitStore contract (see store-contract.ts): more refusals than the threshold within
// one window of the first policy ban the ban subject; bannedUntil() reports it, unban() lifts it.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { BanRule } from '../../src/limits/rate-limit.store.js'
import { fresh, MINUTE, T0, windows, type Setup } from './store-contract.common.js'

export function runBanContract(setup: Setup): void {
  const banRule = (subject: string): BanRule => ({ subject, threshold: 2, durationMs: 10 * MINUTE })

  test('ban: more refusals than the threshold in one window ban the ban subject until now + duration', async (t) => {
    const store = await setup(t)
    const [subject, key] = [fresh('account'), fresh('key')]
    const consume = (now: number) => store.consume({ subject, windows: windows(1, 100), now, ban: banRule(key) })
    assert.equal((await consume(T0)).admitted, true)
    for (let i = 0; i < 2; i++) {
      const r = await consume(T0 + 1000)
      assert.equal(r.admitted, false)
      assert.equal(r.bannedUntil, undefined, `refusal ${i + 1} is within the threshold`)
    }
    assert.equal(await store.bannedUntil({ subject: key, now: T0 + 1000 }), undefined)
    const third = await consume(T0 + 2000)
    assert.equal(third.admitted, false)
    assert.equal(third.bannedUntil, T0 + 2000 + 10 * MINUTE)
    assert.equal(await store.bannedUntil({ subject: key, now: T0 + 3000 }), T0 + 2000 + 10 * MINUTE)

    const later = await consume(T0 + 5 * MINUTE)
    assert.equal(later.admitted, false, 'still banned in a later minute with quota free')
    assert.equal(later.bannedUntil, T0 + 2000 + 10 * MINUTE)
    assert.equal((await store.usage({ subject, windows: windows(1, 100), now: T0 + 5 * MINUTE })).windows[0]!.used, 0, 'a banned request consumes nothing')

    const expired = T0 + 2000 + 10 * MINUTE
    assert.equal(await store.bannedUntil({ subject: key, now: expired }), undefined)
    const after = await consume(expired)
    assert.equal(after.admitted, true)
    assert.equal(after.bannedUntil, undefined)
  })

  test('ban: refusals count per window of the first policy; the same number spread over two windows bans nobody', async (t) => {
    const store = await setup(t)
    const [subject, key] = [fresh('account'), fresh('key')]
    const consume = (now: number) => store.consume({ subject, windows: windows(1, 100), now, ban: banRule(key) })
    for (const start of [T0, T0 + MINUTE]) {
      assert.equal((await consume(start)).admitted, true)
      for (let i = 0; i < 2; i++) assert.equal((await consume(start + 1000)).bannedUntil, undefined)
    }
    assert.equal(await store.bannedUntil({ subject: key, now: T0 + MINUTE + 2000 }), undefined)
  })

  test('ban: it binds the ban subject only; another ban subject of the same counted subject is just limited', async (t) => {
    const store = await setup(t)
    const [subject, banned, other] = [fresh('account'), fresh('key'), fresh('key')]
    await store.consume({ subject, windows: windows(1, 100), now: T0, ban: banRule(banned) })
    for (let i = 0; i < 3; i++) await store.consume({ subject, windows: windows(1, 100), now: T0, ban: banRule(banned) })
    assert.notEqual(await store.bannedUntil({ subject: banned, now: T0 }), undefined)
    assert.equal(await store.bannedUntil({ subject: other, now: T0 }), undefined)
    const next = await store.consume({ subject, windows: windows(1, 100), now: T0 + MINUTE, ban: banRule(other) })
    assert.equal(next.admitted, true)
    assert.equal(next.bannedUntil, undefined)
  })

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
}
