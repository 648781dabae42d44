// The benchmark's output: a table on stdout, a JSON file under bench/results/, and (full runs) BENCHMARKS.md.
import { readFileSync, writeFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { budgetTable, referencesLine, scaleTargetsTable, workersLine } from './budget.js'
import { deliveryLine } from './receiver.js'
import type { ScenarioResult } from './scenario-result.js'
import { startupLine, type StartupResult } from './startup.js'

interface Report {
  results: ScenarioResult[]
  startup?: StartupResult
  skipped: string[]
  settings: {
    pets: number
    deepRows: number
    connections: number
    seconds: number
    warmup: number
    rounds: number
    requests?: number | undefined
  }
  quick: boolean
  out?: string
}

function table(results: ScenarioResult[]): string {
  const rows = results.map(
    (r) =>
      `| ${r.target} | ${r.scenario} | ${r.description} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ` +
      `${Math.round(r.baselineRps)} | **${r.ratio.toFixed(3)}** | ${Math.round(r.cpuUs)} | ` +
      `${Math.round(r.mainCpuUs)} | ${Math.round(r.rssMb)} | ${r.unexpected} |`,
  )
  return [
    '| target | scenario | request | req/s (median) | p50 ms | p99 ms | baseline req/s | ratio | CPU µs/req | ' +
      'main thread µs/req | peak RSS MB | unexpected |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n')
}

/** Each list with a first-page and a deep-page scenario: [what, first, deep]. */
const DEEP_PAIRS = [
  ['pets', 'deep-first', 'deep-page'],
  ['store orders (status=approved)', 'orders-first', 'orders-deep'],
] as const

function deepRatio(
  results: ScenarioResult[],
  target: string,
  [what, firstName, deepName]: (typeof DEEP_PAIRS)[number],
): string | undefined {
  const first = results.find((r) => r.target === target && r.scenario === firstName)
  const deep = results.find((r) => r.target === target && r.scenario === deepName)
  if (!first || !deep) return undefined
  return (
    `${target}, ${what}: deep page mean ` +
    `latency ${deep.meanMs.toFixed(2)} ms vs first page ${first.meanMs.toFixed(2)} ms → ` +
    `${(deep.meanMs / first.meanMs).toFixed(2)}× (req/s ${(deep.rps / first.rps).toFixed(2)}× of the first page's)`
  )
}

export function writeReport({ results, startup, skipped, settings, quick, out }: Report): void {
  const machine =
    `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), ${Math.round(totalmem() / 2 ** 30)}` +
    ` GiB, Node.js ${process.version}`
  const deep = [...new Set(results.map((r) => r.target))]
    .flatMap((t) => DEEP_PAIRS.map((pair) => deepRatio(results, t, pair)))
    .filter(Boolean)
  const started = startup ? `Start-up (issue 25's target: npm start under 1.5 s): ${startupLine(startup)}\n\n` : ''
  const deliveries = results.flatMap((r) =>
    r.delivery ? [`${r.target} ${r.scenario}: ${deliveryLine(r.delivery)}`] : [],
  )
  const notes = [...deep, ...deliveries, ...skipped.map((s) => `skipped: ${s}`)].join('\n')
  const text = `${started}${table(results)}\n\n${notes}\n`
  process.stdout.write(`\n${scaleTargetsTable(results)}\n\n${workersLine(results)}\n`)
  process.stdout.write(`\n${text}`)
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  writeFileSync(
    out ?? new URL(`./results/${stamp}${quick ? '-quick' : ''}.json`, import.meta.url),
    JSON.stringify({ machine, settings, startup, results, skipped }, null, 2),
  )
  if (quick) return
  const optimisations = readFileSync(new URL('./optimisations.md', import.meta.url), 'utf8')
  const command =
    `npm run bench ` +
    `-- --pets ${settings.pets} --deep-rows ${settings.deepRows} --connections ${settings.connections} --seconds ` +
    `${settings.seconds} --rounds ${settings.rounds}`
  writeFileSync(
    new URL('../BENCHMARKS.md', import.meta.url),
    `# Benchmarks\n\nLatest full run, ${new Date().toISOString()}, on ${machine}; the load generator ` +
      `(autocannon, ${settings.connections} connections) runs on the same machine.\n\n` +
      `Command: \`${command}\` (${settings.warmup} s warm-up, then ${settings.rounds} rounds of ${settings.seconds} ` +
      `s alternating service and baseline; figures are medians of the rounds).\n\n` +
      `${text}\n## What the figures mean\n\n` +
      '- **baseline**: a bare `node:http` server answering the same URL with the same status and precomputed body ' +
      'the service gave, measured in the same run, right after the service, round by round. It is what Node.js ' +
      'itself does on this machine; **ratio** = service req/s ÷ baseline req/s. Ratios move less between runs on a ' +
      'noisy shared machine than absolute req/s do, but they move too when the speed of the machine changes during a ' +
      'run (see the spread of runs below).\n' +
      '- The service runs with everything on: every request is authenticated (SHA-256 of the key, one indexed ' +
      'lookup; on PostgreSQL a server reuses a look-up for up to `KEY_CACHE_TTL_MS`, 1 s, and drops it when any ' +
      'server or the CLI changes a key: see the README), rate-limited (both windows), validated, logged (one JSON ' +
      'line at info), and every 201/202 is committed (SQLite WAL, synchronous=FULL) before it is sent.\n' +
      '- **p50/p99**: latency at that many concurrent connections, so mostly queueing. **peak RSS**: the service ' +
      'process (all workers together for the workers target), high-water mark for the whole target.\n' +
      "- **CPU µs/req**: the service's CPU time (user + system, every thread and worker) per request, read from " +
      '/proc: steadier than req/s on a shared machine, and what the budget analysis below is in.\n' +
      "- **unexpected**: responses whose status was not the scenario's (should be 0).\n" +
      "- **reference** rows: the two servers the issue's budget was measured against (`bench/references/`), on " +
      'list-20 with the same baseline: a plain Fastify route with a response schema, and a naive prototype (bearer ' +
      'check against one key, an in-memory counter, a better-sqlite3 read of 20 rows, no log). They run with ' +
      "Node.js's default heap settings.\n\n" +
      `## Targets of issue 18, this run\n\n${scaleTargetsTable(results)}\n\n${workersLine(results)}\n\n` +
      `## Budget (issue 6), this run\n\n${budgetTable(results)}\n\n${referencesLine(results)}\n\n` +
      optimisations,
  )
}
