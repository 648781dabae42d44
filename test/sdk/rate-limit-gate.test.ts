// Issue 27's case against the real service: 100 parallel `listPage` calls on a fresh free key (60 a minute) with
// default options end with 100 successes, and the service never answers `temporarily_banned` (more than 30 refused
// requests in a minute would start a 15-minute ban). Also with the minute's quota half used first.
//
// SLOW ON PURPOSE (up to ~2.5 minutes): the free plan's minute is real here (the app's clock follows real time,
// `realTime`, shifted so that a minute starts with the test), because the client sleeps real seconds until the
// window resets; the harness's manual clock cannot stand in for that. The two cases run at once, each on its own
// account, so they share one wait. Runs in both passes (SQLite with the in-memory limiter; PostgreSQL with the Redis
// limiter). Smaller gate rules: gate.test.ts.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Logger } from '../../sdk/src/index.js'
import { bearer, startHarness } from '../helpers/harness.js'
import { parseMetrics } from '../helpers/prometheus.js'
import { clientOf } from '../helpers/sdk.js'

const CALLS = 100

function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = []
  const write = (message: string) => void lines.push(message)
  return { logger: { debug: write, info: write, warn: write, error: write }, lines }
}

async function parallelPages(origin: string, key: string) {
  const { logger, lines } = recordingLogger()
  const { ps, responses } = clientOf(origin, key, { logger, logLevel: 'debug' })
  const started = performance.now()
  const results = await Promise.allSettled(Array.from({ length: CALLS }, () => ps.pets.listPage()))
  return { results, responses, lines, seconds: (performance.now() - started) / 1000 }
}

test(
  '100 parallel listPage calls on a free key: 100 successes, ' + 'never a 429 or a ban; also with the minute half used',
  async (t) => {
    const h = await startHarness(t, { listen: true, realTime: true })
    // "Half used" must stay in the same minute as the burst that follows it: the app's minute starts now (its clock
    // runs at real time, shifted to the next minute's start), instead of a wait for the real minute to turn. The
    // client waits by the service's clock (`RateLimit: …;t=`, seconds until the reset), so the shift is no matter.
    const shift = 60_000 - (Date.now() % 60_000)
    h.clock.now = () => Date.now() + shift
    const fresh = await h.newAccount()
    const halfUsed = await h.newAccount()
    for (let i = 0; i < 30; i++)
      assert.equal((await fetch(`${h.baseUrl}/v1/pets`, { headers: bearer(halfUsed.key) })).status, 200)

    const runs = await Promise.all([parallelPages(h.baseUrl, fresh.key), parallelPages(h.baseUrl, halfUsed.key)])
    for (const [name, run] of [
      ['fresh', runs[0]],
      ['half used', runs[1]],
    ] as const) {
      t.diagnostic(
        `${name}: ${CALLS} calls in ${run.seconds.toFixed(1)} s, ${run.responses.length} answers, ` +
          `${run.lines.filter((l) => l.includes('waiting')).length} waits`,
      )
      const failed = run.results
        .filter((r) => r.status === 'rejected')
        .map((r) => String((r as PromiseRejectedResult).reason))
      assert.deepEqual(failed, [], `${name}: every call succeeds`)
      assert.deepEqual(
        run.responses.map((r) => r.status),
        Array(CALLS).fill(200),
        `${name}: every answer the client saw was a 200, one per call`,
      )
      assert.equal(
        run.lines.filter((l) => / → 200 in \d+ ms \(attempt 1, request [0-9a-f-]{36}, quota \d+\/60\)$/.test(l)).length,
        CALLS,
        `${name}: one debug line per attempt`,
      )
      assert.ok(
        run.lines.some((l) => /waiting \d+\.\d s for the rate limit/.test(l)),
        `${name}: the client waited for a reset (the quota is 60)`,
      )
      // A hang guard for "within ~2 minutes": at most two resets (≤ 60 s each, plus up to 10 % jitter) and the calls.
      assert.ok(run.seconds < 150, `${name}: ${run.seconds} s`)
    }
    // What the service saw: no ban started, and both keys are still served.
    const metrics = await h.app.inject({ url: '/metrics' })
    assert.equal(metrics.statusCode, 200)
    const bans = parseMetrics(metrics.body).find((s) => s.name === 'petstore_rate_limit_bans_total')
    assert.equal(bans?.value ?? 0, 0, 'petstore_rate_limit_bans_total')
    for (const account of [fresh, halfUsed]) {
      const after = await fetch(`${h.baseUrl}/v1/pets`, { headers: bearer(account.key) })
      const body = (await after.json()) as { code?: string }
      assert.notEqual(body.code, 'temporarily_banned')
    }
  },
)
