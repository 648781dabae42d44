// The benchmark harness runs end to end once per test run, so it cannot rot. Nothing here asserts a timing: only
// that every scenario ran and got the status it expects. A smoke run (`--requests 100`: each load run sends 100
// requests instead of loading the machine for seconds, with no warm-up) costs a fraction of the CPU of `--quick`,
// which the rest of the suite, running beside it, needs more.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { test } from 'node:test'
import { promisify } from 'node:util'
import { backend } from '../helpers/backend.js'
import { repoRoot } from '../helpers/root.js'

const run = promisify(execFile)
const root = repoRoot

test('npm run bench (a smoke run) runs every scenario against its baseline and writes its results', {
  timeout: 600_000,
}, async (t) => {
  if (backend !== 'sqlite')
    return t.skip('runs once, in the SQLite pass (it covers PostgreSQL + Redis itself when configured)')
  const out = join(mkdtempSync(join(tmpdir(), 'petstore-bench-test-')), 'results.json')
  t.after(() => rmSync(dirname(out), { recursive: true, force: true }))
  const { stdout } = await run(
    process.execPath,
    [
      '--import',
      'tsx',
      'bench/run.ts',
      '--quick',
      // npm test has built; rebuilding here would rewrite dist/petstore.mjs under the files running it beside us.
      '--no-build',
      '--requests',
      '100',
      '--pets',
      '200',
      '--deep-rows',
      '1000',
      '--out',
      out,
    ],
    { cwd: root, maxBuffer: 16 * 1024 * 1024, timeout: 590_000 },
  )
  for (const scenario of [
    'list-20',
    'list-100',
    'deep-first',
    'deep-page',
    'orders-first',
    'orders-deep',
    'get-pet',
    'create',
    'create-subscribed',
    'create-idempotent',
    'unauthorized',
    'rate-limited',
    'message',
  ]) {
    assert.match(stdout, new RegExp(`\\| sqlite \\| ${scenario} \\|`), `${scenario} is in the table`)
  }
  for (const reference of ['plain Fastify route', 'naive prototype']) {
    assert.match(
      stdout,
      new RegExp(`\\| reference: ${reference} \\| list-20 \\|`),
      `the ${reference} is measured on list-20`,
    )
  }
  const report = JSON.parse(readFileSync(out, 'utf8')) as {
    startup: { npmStartMs: number; nodeServeMs: number; baselineMs: number; serveCpuMs: number }
    results: {
      target: string
      scenario: string
      rps: number
      baselineRps: number
      ratio: number
      unexpected: number
      rssMb: number
      delivery?: { expected: number; arrived: number; p95Ms: number }
    }[]
  }
  for (const r of report.results) {
    assert.equal(r.unexpected, 0, `${r.target} ${r.scenario}: every response had the expected status`)
    assert.ok(r.rps > 0 && r.baselineRps > 0 && r.ratio > 0, `${r.target} ${r.scenario} measured both`)
    assert.ok(r.rssMb > 0, `${r.target} ${r.scenario} peak RSS read`)
  }
  // create-subscribed's writes are events: every one reaches the benchmark's receiver, its lag measured.
  for (const r of report.results.filter((r) => r.scenario === 'create-subscribed')) {
    assert.ok(r.delivery && r.delivery.expected > 100, `${r.target}: the scenario's events were counted`)
    assert.equal(r.delivery.arrived, r.delivery.expected, `${r.target}: every event was delivered`)
    assert.ok(r.delivery.p95Ms >= 0, `${r.target}: lags measured`)
  }
  assert.match(stdout, /start-up: npm start \d+ ms, node bin\/petstore\.js serve \d+ ms/)
  for (const [what, ms] of Object.entries(report.startup)) assert.ok(ms > 0, `start-up ${what} measured`)
  const targets = new Set(report.results.map((r) => r.target))
  if (process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL) {
    for (const target of ['postgres+redis', 'postgres+redis, 2 workers', 'sqlite+redis, 2 workers'])
      assert.ok(targets.has(target), `${target} was measured`)
  }
})

test('npm run bench:compare builds a base revision beside the working tree and compares them', {
  timeout: 300_000,
}, async (t) => {
  if (backend !== 'sqlite') return t.skip('runs once, in the SQLite pass')
  const { stdout } = await run(
    process.execPath,
    [
      '--import',
      'tsx',
      'bench/compare.ts',
      '--base',
      'HEAD',
      '--scenario',
      'get-pet',
      '--rounds',
      '2',
      '--batch',
      '100',
    ],
    {
      cwd: root,
      maxBuffer: 16 * 1024 * 1024,
      timeout: 290_000,
    },
  )
  assert.match(
    stdout,
    new RegExp(
      '^get-pet: CPU µs per injected request, median of 2 batches of 100: ' +
        'base \\(HEAD\\) \\d+\\.\\d, this \\d+\\.\\d; this ÷ base, median of pairs: \\d\\.\\d{3}$',
      'm',
    ),
  )
  const { stdout: worktrees } = await run('git', ['worktree', 'list'], { cwd: root })
  assert.doesNotMatch(worktrees, /petstore-compare-/, 'the base worktree is removed afterwards')
})
