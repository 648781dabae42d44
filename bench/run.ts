// `npm run bench [-- --quick] [--pets N] [--deep-rows N] [--connections C] [--seconds S] [--warmup S] [--rounds R]
//   [--requests N] [--targets LIST] [--scenarios LIST] [--no-build]`
// Builds, seeds a fresh database, starts the service and a bare node:http baseline as separate processes,
// and loads each from this process, alternating service and baseline, round after round. The two
// reference servers (bench/references/) are measured the same way on list-20. PostgreSQL and Redis are found or
// started as `.ci/run` does (bench/backing-services.ts). `--targets` runs some of TARGETS only (and leaves
// BENCHMARKS.md alone: it holds full runs); `--scenarios` likewise runs some scenarios only.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { load, median, type RunFigures } from './measure.js'
import {
  cpuSeconds,
  mainThreadCpuSeconds,
  freePort,
  peakRssMb,
  startBaseline,
  startReference,
  startService,
  type Running,
} from './processes.js'
import { writeReport } from './report.js'
import type { ScenarioResult } from './scenario-result.js'
import { scenarios, type Scenario } from './scenarios.js'
import { seed } from './seed.js'
import { deliveryLine, startReceiver } from './receiver.js'
import { withPostgresDatabase } from './postgres.js'
import { backingServices } from './backing-services.js'
import { measureStartup, type StartupResult } from './startup.js'

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    pets: { type: 'string' },
    'deep-rows': { type: 'string' },
    connections: { type: 'string', default: '50' },
    seconds: { type: 'string' },
    /** Seconds of load before the measured rounds, for the service and its baseline each. */
    warmup: { type: 'string' },
    rounds: { type: 'string' },
    /**
     * Each load run sends N requests instead of running for seconds: a smoke run (the test suite's) that proves every
     * scenario works at a fraction of the CPU; its figures measure nothing.
     */
    requests: { type: 'string' },
    /** Where to write the JSON results (default bench/results/<time>.json). */
    out: { type: 'string' },
    /** Comma-separated names from TARGETS; all of them by default. */
    targets: { type: 'string' },
    /** Comma-separated scenario names (bench/scenarios.ts); each target's own by default. */
    scenarios: { type: 'string' },
    /**
     * Runs the build already in dist/ instead of building first. The test suite passes it: `npm test` has built, and
     * a rebuild while other test files run dist/petstore.mjs would hand them a half-written file.
     */
    'no-build': { type: 'boolean', default: false },
  },
})
const TARGETS = ['startup', 'sqlite', 'references', 'sqlite-workers', 'postgres', 'postgres-workers'] as const
const chosen = args.targets === undefined ? [...TARGETS] : args.targets.split(',').map((t) => t.trim())
for (const t of chosen)
  if (!(TARGETS as readonly string[]).includes(t))
    throw new Error(`unknown target ${t}; the targets are ${TARGETS.join(', ')}`)
const runs = (target: (typeof TARGETS)[number]) => chosen.includes(target)
const onlyScenarios = args.scenarios?.split(',').map((s) => s.trim())
// A partial run (or a smoke run) writes its JSON but not BENCHMARKS.md, like a quick one.
const quick =
  args.quick! || chosen.length < TARGETS.length || onlyScenarios !== undefined || args.requests !== undefined
const settings = {
  pets: Number(args.pets ?? (quick ? 1_000 : 10_000)),
  deepRows: Number(args['deep-rows'] ?? (quick ? 20_000 : 1_000_000)),
  connections: Number(args.connections),
  seconds: Number(args.seconds ?? (quick ? 1 : 5)),
  warmup: Number(args.warmup ?? (quick ? 1 : 2)),
  rounds: Number(args.rounds ?? (quick ? 1 : 3)),
  requests: args.requests === undefined ? undefined : Number(args.requests),
}
/** Each load run sends `--requests` and no more: a smoke run that proves every scenario works. */
const smoke = settings.requests !== undefined
/** Where the subscribed account's endpoint points (`create-subscribed`). */
const receiver = await startReceiver()
/** The run's database files and the processes' logs. */
const dir = mkdtempSync(join(tmpdir(), 'petstore-bench-'))

interface Target {
  label: string
  env: NodeJS.ProcessEnv
  serveArgs?: string[]
  only?: string[]
}

async function measureScenario(
  service: Running,
  ports: { pets: number; messages: number },
  scenario: Scenario,
  label: string,
): Promise<ScenarioResult> {
  const url = `http://127.0.0.1:${scenario.listener === 'pets' ? ports.pets : ports.messages}`
  const send = () =>
    fetch(url + scenario.path, { method: scenario.method, headers: scenario.headers, body: scenario.body })
  for (let i = 0; i < (scenario.prime ?? 0); i++) await (await send()).text()
  await receiver.reset()
  const probe = await send()
  const body = await probe.text()
  if (probe.status !== scenario.expectStatus)
    throw new Error(`${scenario.name}: expected ${scenario.expectStatus}, got ${probe.status} ${body}`)
  const baselinePort = await freePort()
  const baseline = await startBaseline(baselinePort, probe.status, body, join(dir, 'baseline.log'))
  const baselineUrl = `http://127.0.0.1:${baselinePort}`
  const opts = { connections: settings.connections, seconds: settings.warmup, requests: settings.requests }
  // A smoke run (--requests) warms nothing: its figures measure nothing anyway.
  const warm = smoke ? undefined : await load(url, scenario, opts)
  if (!smoke) await load(baselineUrl, scenario, opts)
  const svc: RunFigures[] = []
  const base: RunFigures[] = []
  const cpuPerRequest: number[] = []
  const mainCpuPerRequest: number[] = []
  for (let round = 0; round < settings.rounds; round++) {
    const pid = service.child.pid!
    const cpuBefore = cpuSeconds(pid)
    const mainBefore = mainThreadCpuSeconds(pid)
    const figures = await load(url, scenario, { ...opts, seconds: settings.seconds })
    cpuPerRequest.push(((cpuSeconds(pid) - cpuBefore) / Math.max(1, figures.total)) * 1e6)
    mainCpuPerRequest.push(((mainThreadCpuSeconds(pid) - mainBefore) / Math.max(1, figures.total)) * 1e6)
    svc.push(figures)
    base.push(await load(baselineUrl, scenario, { ...opts, seconds: settings.seconds }))
  }
  await baseline.stop()
  // Every event of the scenario's successful writes (the probe's, the warm-up's, the rounds'), delivered.
  const created = 1 + [...(warm ? [warm] : []), ...svc].reduce((n, r) => n + r.total - r.unexpected, 0)
  const delivery = scenario.delivered ? await receiver.figures(created) : undefined
  const rps = median(svc.map((r) => r.rps))
  const baselineRps = median(base.map((r) => r.rps))
  const result: ScenarioResult = {
    target: label,
    scenario: scenario.name,
    description: scenario.description,
    rps,
    p50: median(svc.map((r) => r.p50)),
    p99: median(svc.map((r) => r.p99)),
    meanMs: median(svc.map((r) => r.meanMs)),
    baselineRps,
    ratio: rps / baselineRps,
    cpuUs: median(cpuPerRequest),
    mainCpuUs: median(mainCpuPerRequest),
    unexpected: svc.reduce((n, r) => n + r.unexpected, 0),
    rssMb: peakRssMb(service.child.pid!),
    ...(delivery ? { delivery } : {}),
  }
  process.stdout.write(
    `  ${label} ${scenario.name}: ${Math.round(rps)} req/s (baseline ${Math.round(baselineRps)}), ratio ` +
      `${result.ratio.toFixed(3)}, p99 ${result.p99} ms, ${Math.round(result.cpuUs)} µs CPU/request ` +
      `(main thread ${Math.round(result.mainCpuUs)})\n`,
  )
  if (delivery) process.stdout.write(`    ${deliveryLine(delivery)}\n`)
  return result
}

async function runTarget(target: Target, seeded: Awaited<ReturnType<typeof seed>>): Promise<ScenarioResult[]> {
  const ports = { pets: await freePort(), messages: await freePort() }
  const service = await startService(
    {
      LOG_LEVEL: 'info',
      RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '1000000000',
      ...target.env,
      PORT: String(ports.pets),
      MESSAGES_PORT: String(ports.messages),
    },
    target.serveArgs ?? [],
    join(dir, `service-${target.label.replace(/\W+/g, '-')}.log`),
  )
  try {
    const results: ScenarioResult[] = []
    const wanted = (name: string) =>
      (!target.only || target.only.includes(name)) && (!onlyScenarios || onlyScenarios.includes(name))
    for (const scenario of scenarios(seeded).filter((s) => wanted(s.name))) {
      results.push(await measureScenario(service, ports, scenario, target.label))
    }
    return results
  } finally {
    await service.stop()
  }
}

/** The reference servers, on list-20 against the same baseline: where the budget's ratios come from. */
const REFERENCES = [
  { name: 'plain-fastify', label: 'reference: plain Fastify route' },
  { name: 'naive-prototype', label: 'reference: naive prototype' },
]

async function runReferences(databaseUrl: string, seeded: Awaited<ReturnType<typeof seed>>): Promise<ScenarioResult[]> {
  const list20 = scenarios(seeded).find((s) => s.name === 'list-20')!
  const results: ScenarioResult[] = []
  for (const { name, label } of REFERENCES) {
    const port = await freePort()
    const env = { PORT: String(port), REFERENCE_DATABASE: databaseUrl, REFERENCE_KEY: seeded.key }
    const reference = await startReference(name, env, join(dir, `${name}.log`))
    try {
      results.push(await measureScenario(reference, { pets: port, messages: port }, list20, label))
    } finally {
      await reference.stop()
    }
  }
  return results
}

/** What the PostgreSQL + Redis targets measure (one process, and two workers of one instance). */
const POSTGRES_SCENARIOS = [
  'list-20',
  'get-pet',
  'create',
  'create-subscribed',
  'deep-first',
  'deep-page',
  'orders-first',
  'orders-deep',
]
const POSTGRES_WORKERS_SCENARIOS = ['list-20', 'get-pet', 'create']

async function main(): Promise<void> {
  if (!args['no-build']) execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' })
  const skipped: string[] = []
  const results: ScenarioResult[] = []
  let startup: StartupResult | undefined
  const backing = await backingServices()
  skipped.push(...backing.missing)
  try {
    if (runs('startup')) startup = await measureStartup({ rounds: smoke ? 1 : quick ? 3 : 7, dir })
    const databaseUrl = join(dir, 'bench.db')
    process.stdout.write(
      `seeding ${settings.pets} pets and a deep account of ${settings.deepRows} pets and as many orders…\n`,
    )
    const seeded = await seed({
      databaseUrl,
      receiverUrl: receiver.url,
      pets: settings.pets,
      deepRows: runs('sqlite') ? settings.deepRows : Math.min(settings.deepRows, 1_000),
    })
    if (runs('sqlite'))
      results.push(...(await runTarget({ label: 'sqlite', env: { DATABASE_URL: databaseUrl } }, seeded)))
    if (runs('references')) results.push(...(await runReferences(databaseUrl, seeded)))
    const redis = backing.redisUrl
    if (runs('sqlite-workers') && redis) {
      const env = { DATABASE_URL: databaseUrl, REDIS_URL: redis, REDIS_PREFIX: `bench-${process.pid}:` }
      // Pets only: the same database holds the messages the first target queued, and a delivery worker working
      // through that backlog (a write per message, in both processes) would be measured instead of the pets.
      const serveArgs = ['--workers', '2', '--only', 'pets']
      results.push(
        ...(await runTarget({ label: 'sqlite+redis, 2 workers', env, serveArgs, only: ['list-20', 'create'] }, seeded)),
      )
    } else if (runs('sqlite-workers')) skipped.push('--workers 2: needs Redis (more than one worker requires it)')
    if ((runs('postgres') || runs('postgres-workers')) && backing.postgresUrl && redis) {
      results.push(
        ...(await withPostgresDatabase(backing.postgresUrl, async (url) => {
          const pgSeeded = await seed({
            databaseUrl: url,
            receiverUrl: receiver.url,
            pets: settings.pets,
            deepRows: Math.min(settings.deepRows, 20_000),
          })
          const env = { DATABASE_URL: url, REDIS_URL: redis, REDIS_PREFIX: `bench-pg-${process.pid}:` }
          const measured: ScenarioResult[] = []
          if (runs('postgres'))
            measured.push(...(await runTarget({ label: 'postgres+redis', env, only: POSTGRES_SCENARIOS }, pgSeeded)))
          if (runs('postgres-workers')) {
            const serveArgs = ['--workers', '2', '--only', 'pets']
            measured.push(
              ...(await runTarget(
                { label: 'postgres+redis, 2 workers', env, serveArgs, only: POSTGRES_WORKERS_SCENARIOS },
                pgSeeded,
              )),
            )
          }
          return measured
        })),
      )
    } else if (runs('postgres') || runs('postgres-workers')) skipped.push('PostgreSQL + Redis: needs both (see above)')
  } finally {
    rmSync(dir, { recursive: true, force: true })
    await backing.stop()
  }
  writeReport({ results, startup, skipped, settings, quick, out: args.out })
}

await main()
