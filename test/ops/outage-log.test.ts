// ops/outage-log.ts on a test clock: one warning when a dependency's calls start failing, a count of the failures
// since the last line at most every 30 s while it lasts, one line when a call works again, and never a stack.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createManualClock } from '../../src/kernel/clock.js'
import { createOutageLog } from '../../src/ops/outage-log.js'
import { captureLog } from '../helpers/capture-log.js'

type Line = {
  level: number
  msg: string
  dependency?: string
  failedCalls?: number
  downMs?: number
  reason?: string
  err?: unknown
}

function setup(options: { withError?: boolean } = {}) {
  const clock = createManualClock(0)
  const { log, lines } = captureLog()
  const outage = createOutageLog({ dependency: 'database', log, clock, ...options })
  const failure = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })
  return { clock, lines: lines as unknown as Line[], outage, failure }
}

test('a failure every 250 ms for 100 s: one warning, a count every 30 s, one line at the end; no stack', () => {
  const { clock, lines, outage, failure } = setup()
  outage.ok()
  assert.deepEqual(lines, [], 'nothing while all is well')
  for (let t = 0; t < 100_000; t += 250) {
    clock.set(t)
    outage.failed(failure())
  }
  clock.set(100_000)
  outage.ok()
  outage.ok()
  const summary = lines.map(({ level, msg, dependency, failedCalls, downMs, reason }) => ({
    level,
    msg,
    dependency,
    failedCalls,
    downMs,
    reason,
  }))
  assert.deepEqual(summary, [
    {
      level: 40,
      msg: 'database unreachable: connect ECONNREFUSED 127.0.0.1:5432',
      dependency: 'database',
      failedCalls: undefined,
      downMs: undefined,
      reason: 'connect ECONNREFUSED 127.0.0.1:5432',
    },
    // 120 failures in each 30 s after the first one.
    {
      level: 40,
      msg: 'database still unreachable',
      dependency: 'database',
      failedCalls: 120,
      downMs: 30_000,
      reason: 'connect ECONNREFUSED 127.0.0.1:5432',
    },
    {
      level: 40,
      msg: 'database still unreachable',
      dependency: 'database',
      failedCalls: 120,
      downMs: 60_000,
      reason: 'connect ECONNREFUSED 127.0.0.1:5432',
    },
    {
      level: 40,
      msg: 'database still unreachable',
      dependency: 'database',
      failedCalls: 120,
      downMs: 90_000,
      reason: 'connect ECONNREFUSED 127.0.0.1:5432',
    },
    {
      level: 30,
      msg: 'database reachable again',
      dependency: 'database',
      failedCalls: 400,
      downMs: 100_000,
      reason: undefined,
    },
  ])
  assert.ok(!JSON.stringify(lines).includes('stack'))
})

test('failures further apart than 30 s: a count line with each, never more than one per 30 s', () => {
  const { clock, lines, outage, failure } = setup()
  for (const t of [0, 10_000, 45_000, 50_000, 74_999, 75_000, 200_000]) {
    clock.set(t)
    outage.failed(failure())
  }
  assert.deepEqual(
    lines.map((l) => [l.msg, l.failedCalls, l.downMs]),
    [
      ['database unreachable: connect ECONNREFUSED 127.0.0.1:5432', undefined, undefined],
      ['database still unreachable', 2, 45_000],
      ['database still unreachable', 3, 75_000],
      ['database still unreachable', 1, 200_000],
    ],
  )
})

test('a second outage is reported again, from its own start', () => {
  const { clock, lines, outage, failure } = setup()
  outage.failed(failure())
  clock.advance(5_000)
  outage.ok()
  clock.advance(60_000)
  outage.failed(failure())
  outage.failed(failure())
  clock.advance(1_000)
  outage.ok()
  assert.deepEqual(
    lines.map((l) => [l.msg, l.failedCalls, l.downMs]),
    [
      ['database unreachable: connect ECONNREFUSED 127.0.0.1:5432', undefined, undefined],
      ['database reachable again', 1, 5_000],
      ['database unreachable: connect ECONNREFUSED 127.0.0.1:5432', undefined, undefined],
      ['database reachable again', 2, 1_000],
    ],
  )
})

test('withError (a failure that may be a bug): the first error whole, stack included, once', () => {
  const { lines, outage, failure } = setup({ withError: true })
  for (let i = 0; i < 5; i++) outage.failed(failure())
  assert.equal(lines.length, 1)
  assert.match(JSON.stringify(lines[0]!.err), /"stack":"Error: connect ECONNREFUSED/)
})

test('quiet: an outage reported elsewhere is counted without a warning of its own, and its end is said', () => {
  const { lines, outage, failure } = setup()
  outage.failed(failure(), { quiet: true })
  outage.failed(failure())
  assert.equal(lines.length, 0)
  outage.ok()
  assert.deepEqual(
    lines.map((l) => [l.msg, l.failedCalls]),
    [['database reachable again', 2]],
  )
})
