// The contract every RateLimitStore keeps (src/limits/rate-limit.store.ts), as one suite that each store
// runs: the in-memory store (memory.store.test.ts) and the Redis store (redis.store.test.ts). Time is a plain
// number here.
import assert from 'node:assert/strict'
import { describe, test as nodeTest } from 'node:test'
import type { RateLimitStore } from '../../../src/modules/limits/rate-limit.store.js'
import { runBanContract } from './store-contract.bans.js'
import { DAY_END, fresh, MINUTE, T0, windows, type After, type Register } from './store-contract.common.js'

interface ContractOptions {
  /** When set, every test of the suite is registered and reported as skipped, with this reason. */
  skip?: string
}

export function runStoreContract(
  name: string,
  makeStore: (t: After) => RateLimitStore | Promise<RateLimitStore>,
  options: ContractOptions = {},
): void {
  const test: Register = (title, fn) => nodeTest(title, options.skip === undefined ? {} : { skip: options.skip }, fn)
  describe(`RateLimitStore contract: ${name}`, () => {
    async function setup(t: After) {
      const store = await makeStore(t)
      t.after(() => store.close())
      return store
    }

    test('ping() resolves while the store can answer', async (t) => {
      const store = await setup(t)
      await assert.doesNotReject(store.ping())
    })

    test(
      'admits while both windows have room, counting each request in both; ' + 'refuses the one over the limit',
      async (t) => {
        const store = await setup(t)
        const subject = fresh('account')
        const now = T0 + 30_000
        for (let i = 1; i <= 3; i++) {
          const r = await store.consume({ subject, windows: windows(3, 10), now })
          assert.equal(r.admitted, true, `request ${i}`)
          assert.deepEqual(
            r.windows.map((w) => [w.name, w.limit, w.seconds, w.used, w.resetAt]),
            [
              ['minute', 3, 60, i, T0 + MINUTE],
              ['day', 10, 86_400, i, DAY_END],
            ],
          )
          assert.equal(r.bannedUntil, undefined)
        }
        const refused = await store.consume({ subject, windows: windows(3, 10), now })
        assert.equal(refused.admitted, false)
        assert.deepEqual(
          refused.windows.map((w) => w.used),
          [3, 3],
        )
      },
    )

    test('a request refused by the minute window consumes nothing from the day window', async (t) => {
      const store = await setup(t)
      const subject = fresh('account')
      for (let i = 0; i < 2; i++)
        assert.equal((await store.consume({ subject, windows: windows(2, 100), now: T0 })).admitted, true)
      for (let i = 0; i < 5; i++)
        assert.equal((await store.consume({ subject, windows: windows(2, 100), now: T0 + 1000 })).admitted, false)
      const usage = await store.usage({ subject, windows: windows(2, 100), now: T0 + 2000 })
      assert.deepEqual(
        usage.windows.map((w) => w.used),
        [2, 2],
      )
      const next = await store.consume({ subject, windows: windows(2, 100), now: T0 + MINUTE })
      assert.equal(next.admitted, true)
      assert.deepEqual(
        next.windows.map((w) => w.used),
        [1, 3],
      )
    })

    test('a request refused by the day window consumes nothing from the minute window', async (t) => {
      const store = await setup(t)
      const subject = fresh('account')
      for (let i = 0; i < 3; i++)
        assert.equal((await store.consume({ subject, windows: windows(10, 3), now: T0 + i * MINUTE })).admitted, true)
      const at = T0 + 5 * MINUTE
      for (let i = 0; i < 4; i++) {
        const r = await store.consume({ subject, windows: windows(10, 3), now: at })
        assert.equal(r.admitted, false)
        assert.deepEqual(
          r.windows.map((w) => w.used),
          [0, 3],
        )
      }
      assert.deepEqual(
        (await store.usage({ subject, windows: windows(10, 3), now: at })).windows.map((w) => w.used),
        [0, 3],
      )
    })

    test(
      'windows are aligned to the epoch and roll over: ' + 'the next minute and the next UTC day start from zero',
      async (t) => {
        const store = await setup(t)
        const subject = fresh('account')
        for (let i = 0; i < 2; i++) await store.consume({ subject, windows: windows(2, 3), now: T0 + 59_999 })
        assert.equal((await store.consume({ subject, windows: windows(2, 3), now: T0 + 59_999 })).admitted, false)
        const nextMinute = await store.consume({ subject, windows: windows(2, 3), now: T0 + MINUTE })
        assert.equal(nextMinute.admitted, true)
        assert.deepEqual(
          nextMinute.windows.map((w) => [w.used, w.resetAt]),
          [
            [1, T0 + 2 * MINUTE],
            [3, DAY_END],
          ],
        )
        assert.equal(
          (await store.consume({ subject, windows: windows(2, 3), now: T0 + 2 * MINUTE })).admitted,
          false,
          'the day is used up',
        )
        const nextDay = await store.consume({ subject, windows: windows(2, 3), now: DAY_END })
        assert.equal(nextDay.admitted, true)
        assert.deepEqual(
          nextDay.windows.map((w) => [w.used, w.resetAt]),
          [
            [1, DAY_END + MINUTE],
            [1, DAY_END + 86_400_000],
          ],
        )
      },
    )

    test('subjects are counted apart', async (t) => {
      const store = await setup(t)
      const [a, b] = [fresh('account'), fresh('account')]
      for (let i = 0; i < 2; i++) await store.consume({ subject: a, windows: windows(2, 10), now: T0 })
      assert.equal((await store.consume({ subject: a, windows: windows(2, 10), now: T0 })).admitted, false)
      const other = await store.consume({ subject: b, windows: windows(2, 10), now: T0 })
      assert.equal(other.admitted, true)
      assert.deepEqual(
        other.windows.map((w) => w.used),
        [1, 1],
      )
    })

    test('usage() peeks: it counts nothing, however often it is asked', async (t) => {
      const store = await setup(t)
      const subject = fresh('account')
      const unused = await store.usage({ subject, windows: windows(2, 10), now: T0 + 10_000 })
      assert.deepEqual(
        unused.windows.map((w) => [w.name, w.limit, w.used, w.resetAt]),
        [
          ['minute', 2, 0, T0 + MINUTE],
          ['day', 10, 0, DAY_END],
        ],
      )
      await store.consume({ subject, windows: windows(2, 10), now: T0 + 10_000 })
      for (let i = 0; i < 5; i++) {
        const u = await store.usage({ subject, windows: windows(2, 10), now: T0 + 20_000 })
        assert.deepEqual(
          u.windows.map((w) => w.used),
          [1, 1],
        )
      }
      assert.equal(
        (await store.consume({ subject, windows: windows(2, 10), now: T0 + 20_000 })).admitted,
        true,
        'the second request still fits',
      )
    })

    runBanContract(setup, test)

    test('300 concurrent consume() calls admit exactly the limit, never one more', async (t) => {
      const store = await setup(t)
      const subject = fresh('account')
      const results = await Promise.all(
        Array.from({ length: 300 }, () => store.consume({ subject, windows: windows(60, 1000), now: T0 + 5000 })),
      )
      assert.equal(results.filter((r) => r.admitted).length, 60)
      assert.deepEqual(
        results
          .filter((r) => r.admitted)
          .map((r) => r.windows[0]!.used)
          .sort((x, y) => x - y),
        Array.from({ length: 60 }, (_, i) => i + 1),
        'each admitted request saw its own count',
      )
      assert.deepEqual(
        (await store.usage({ subject, windows: windows(60, 1000), now: T0 + 5000 })).windows.map((w) => w.used),
        [60, 60],
      )
    })

    test('concurrent consume() calls bound by the day window admit exactly what is left of the day', async (t) => {
      const store = await setup(t)
      const subject = fresh('account')
      for (let i = 0; i < 10; i++)
        assert.equal(
          (await store.consume({ subject, windows: windows(1000, 50), now: T0 + i * MINUTE })).admitted,
          true,
        )
      const at = T0 + 30 * MINUTE
      const results = await Promise.all(
        Array.from({ length: 200 }, () => store.consume({ subject, windows: windows(1000, 50), now: at })),
      )
      const admitted = results.filter((r) => r.admitted)
      assert.equal(admitted.length, 40)
      assert.deepEqual(
        admitted.map((r) => r.windows[1]!.used).sort((x, y) => x - y),
        Array.from({ length: 40 }, (_, i) => i + 11),
        'each admitted request saw its own day count',
      )
      for (const r of results.filter((x) => !x.admitted))
        assert.deepEqual(
          r.windows.map((w) => w.used),
          [40, 50],
          'refused ones consumed nothing',
        )
      assert.deepEqual(
        (await store.usage({ subject, windows: windows(1000, 50), now: at })).windows.map((w) => w.used),
        [40, 50],
      )
    })
  })
}
