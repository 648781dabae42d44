// The budget of issue 6, checked against a run's own results (ratios to the baseline of the same run).
import type { ScenarioResult } from './scenario-result.js'

interface Check {
  what: string
  budget: string
  measured: (
    r: (scenario: string) => ScenarioResult | undefined,
    sqlite: ScenarioResult[],
  ) => { text: string; met: boolean } | undefined
}

/** The issue's figures: the list-20 budget, and what its two reference servers measured on the issue's machine. */
const LIST_20_BUDGET = 0.3
const ISSUE_PLAIN_FASTIFY = 0.45
const ISSUE_NAIVE_PROTOTYPE = 0.21

const CHECKS: Check[] = [
  {
    what: '`GET /v1/pets?limit=20` ratio',
    budget: `≥ ${LIST_20_BUDGET.toFixed(2)}`,
    measured: (r) =>
      r('list-20') && { text: r('list-20')!.ratio.toFixed(3), met: r('list-20')!.ratio >= LIST_20_BUDGET },
  },
  {
    what: '`GET /v1/pets?limit=20` p99 at 50 connections',
    budget: '≤ 8 ms',
    measured: (r) => r('list-20') && { text: `${r('list-20')!.p99} ms`, met: r('list-20')!.p99 <= 8 },
  },
  {
    what: '`POST /v1/pets` ratio (committed before the 201)',
    budget: '≥ 0.25',
    measured: (r) => r('create') && { text: r('create')!.ratio.toFixed(3), met: r('create')!.ratio >= 0.25 },
  },
  {
    what: 'deep page ÷ first page (mean latency)',
    budget: '≤ 1.2×',
    measured: (r) => {
      const first = r('deep-first')
      const deep = r('deep-page')
      if (!first || !deep) return undefined
      const ratio = deep.meanMs / first.meanMs
      return { text: `${ratio.toFixed(2)}×`, met: ratio <= 1.2 }
    },
  },
  {
    what: 'peak RSS under load, one process',
    budget: '≤ 120 MB',
    measured: (_r, sqlite) => {
      if (sqlite.length === 0) return undefined
      const peak = Math.max(...sqlite.map((s) => s.rssMb))
      return { text: `${Math.round(peak)} MB`, met: peak <= 120 }
    },
  },
]

/** The budget table for the single-process SQLite target. */
export function budgetTable(results: ScenarioResult[]): string {
  const sqlite = results.filter((r) => r.target === 'sqlite')
  const find = (scenario: string) => sqlite.find((r) => r.scenario === scenario)
  const rows = CHECKS.map((c) => {
    const m = c.measured(find, sqlite)
    return `| ${c.what} | ${c.budget} | ${m ? m.text : 'not measured'} | ${m ? (m.met ? 'met' : '**not met**') : ''} |`
  })
  return ['| target (SQLite, one process) | budget | this run | |', '|---|---|---|---|', ...rows].join('\n')
}

/**
 * The issue's reference servers beside the service, on list-20 in this run: the budget's ratios were set from
 * the same two servers on the issue's machine.
 */
export function referencesLine(results: ScenarioResult[]): string {
  const ratio = (target: string) => results.find((r) => r.target === target && r.scenario === 'list-20')?.ratio
  const plain = ratio('reference: plain Fastify route')
  const naive = ratio('reference: naive prototype')
  const service = ratio('sqlite')
  if (plain === undefined || naive === undefined || service === undefined)
    return 'References: not measured in this run.'
  return (
    `References on \`GET /v1/pets?limit=20\`, this run: a plain Fastify route with a ` +
    `response schema ${plain.toFixed(3)} (the issue measured ${ISSUE_PLAIN_FASTIFY}), ` +
    `the naive prototype ${naive.toFixed(3)} (the issue: ${ISSUE_NAIVE_PROTOTYPE}). The service does ` +
    `${(service / naive).toFixed(2)}× the naive prototype's requests/s; ` +
    `the budget's ${LIST_20_BUDGET.toFixed(2)} is ${(LIST_20_BUDGET / ISSUE_NAIVE_PROTOTYPE).toFixed(2)}× the ` +
    `issue's naive prototype.`
  )
}

/** Issue 18's targets: [target, scenario, what, the issue's figure before the work, the target ratio]. */
const SCALE_TARGETS = [
  ['postgres+redis', 'list-20', 'PostgreSQL + Redis, `GET /v1/pets?limit=20`', '0.051', 0.15],
  ['postgres+redis', 'create', 'PostgreSQL + Redis, `POST /v1/pets` (committed before the 201)', '0.043', 0.12],
  ['postgres+redis', 'get-pet', 'PostgreSQL + Redis, `GET /v1/pets/{id}`', '–', 0.15],
  ['sqlite', 'list-20', 'SQLite, `GET /v1/pets?limit=20` (p99 ≤ 8 ms)', '0.26 (wrk)', 0.3],
  ['sqlite', 'create', 'SQLite, `POST /v1/pets`', '0.17', 0.25],
] as const

/** Issue 18's table: each case's figure before the work, its target, and this run (ratio, CPU per request). */
export function scaleTargetsTable(results: ScenarioResult[]): string {
  const rows = SCALE_TARGETS.map(([target, scenario, what, before, goal]) => {
    const r = results.find((x) => x.target === target && x.scenario === scenario)
    if (!r) return `| ${what} | ${before} | ≥ ${goal.toFixed(2)} | not measured | | |`
    const met = r.ratio >= goal && (scenario !== 'list-20' || target !== 'sqlite' || r.p99 <= 8)
    const p99 = target === 'sqlite' && scenario === 'list-20' ? `, p99 ${r.p99} ms` : ''
    return (
      `| ${what} | ${before} | ≥ ${goal.toFixed(2)} | ${r.ratio.toFixed(3)}${p99} | ${Math.round(r.cpuUs)} | ` +
      `${met ? 'met' : '**not met**'} |`
    )
  })
  return ['| case | issue 18 measured | target | this run | CPU µs/req | |', '|---|---|---|---|---|---|', ...rows].join(
    '\n',
  )
}

/** Two workers of one instance against one process, PostgreSQL + Redis, per scenario measured both ways. */
export function workersLine(results: ScenarioResult[]): string {
  const pairs = results
    .filter((r) => r.target === 'postgres+redis, 2 workers')
    .map((two) => [two, results.find((r) => r.target === 'postgres+redis' && r.scenario === two.scenario)] as const)
    .filter((p): p is readonly [ScenarioResult, ScenarioResult] => p[1] !== undefined)
  if (pairs.length === 0) return 'PostgreSQL + Redis, two workers against one: not measured in this run.'
  return (
    `PostgreSQL + Redis, two workers against one process ` +
    `(req/s): ${pairs
      .map(
        ([two, one]) =>
          `${two.scenario} ${(two.rps / one.rps).toFixed(2)}× (${Math.round(one.rps)} → ${Math.round(two.rps)})`,
      )
      .join(', ')}.`
  )
}
