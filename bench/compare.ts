// `npm run bench:compare -- --base <git revision> [--scenario list-20] [--rounds 40] [--batch 1000]`
// A/B of what a change costs or saves per request, for changes too small for `npm run bench` to see through the
// noise of a shared machine. The working tree's build and the base revision's build run side by side in this one
// process, on one fresh database, and answer injected requests (no sockets: the HTTP parser and the kernel are the
// same for both) in alternating batches; each batch's CPU time per request is read with process.cpuUsage. Both
// suffer the same neighbours, so the median of the pairwise ratios (this ÷ base) is steady where absolute figures
// are not. Neither build touches dist/. Needs a base with the same module layout (config, db/database, services, app,
// http/base-app).
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { build } from 'esbuild'
import type { FastifyInstance, InjectOptions } from 'fastify'
import pino from 'pino'
import { median } from './measure.js'
import { scenarios } from './scenarios.js'
import { seed } from './seed.js'

const { values: args } = parseArgs({
  options: {
    base: { type: 'string' },
    scenario: { type: 'string', default: 'list-20' },
    rounds: { type: 'string', default: '40' },
    batch: { type: 'string', default: '1000' },
  },
})
if (!args.base) throw new Error('--base <git revision> is required')
const root = fileURLToPath(new URL('..', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'petstore-compare-'))
const CONCURRENCY = 50

/**
 * Transpiles `tree`'s src/ into `out` file by file, as tsc would lay it out (esbuild: a second or two, where tsc
 * type-checks the whole project first, about a minute of CPU each; a benchmark needs the JavaScript only).
 */
async function transpile(tree: string, out: string): Promise<void> {
  const src = join(tree, 'src')
  const entryPoints = (readdirSync(src, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => join(src, f))
  await build({
    entryPoints,
    outdir: out,
    outbase: src,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'error',
  })
}

/**
 * Builds the working tree into a folder of this run's (beside links to node_modules and package.json), not into
 * dist/: the test suite runs this beside files that run dist/, which a rebuild would rewrite under them.
 */
async function buildWorkingTree(): Promise<string> {
  const tree = join(dir, 'head')
  const out = join(tree, 'dist')
  mkdirSync(tree)
  // What the build finds next to its dist/ in a checkout: its dependencies and package.json (the version).
  for (const name of ['node_modules', 'package.json']) symlinkSync(join(root, name), join(tree, name))
  await transpile(root, out)
  return out
}

/** Builds `revision` in a worktree of its own (sharing this checkout's node_modules); returns its dist folder. */
async function buildRevision(revision: string): Promise<string> {
  const tree = join(dir, 'base')
  execFileSync('git', ['worktree', 'add', '--detach', tree, revision], { cwd: root, stdio: 'ignore' })
  symlinkSync(join(root, 'node_modules'), join(tree, 'node_modules'))
  await transpile(tree, join(tree, 'dist'))
  return join(tree, 'dist')
}

/** The pet store app of one build, as the server makes it, logging to a file of its own. */
async function appOf(
  dist: string,
  name: string,
  databaseUrl: string,
): Promise<{ app: FastifyInstance; close: () => Promise<void> }> {
  // Each module where the build has it: the layered tree first, then where revisions before it kept it.
  const load = (paths: string[]) => {
    const path = paths.find((p) => existsSync(join(dist, p))) ?? paths[0]!
    return import(pathToFileURL(join(dist, path)).href)
  }
  const [{ loadConfig }, { openDatabase }, { buildServices }, { buildApp }, { loggerOptions }] = await Promise.all(
    [
      ['kernel/config.js', 'config.js'],
      ['db/database.js'],
      ['main/services.js', 'services.js'],
      ['main/api-app.js', 'app.js'],
      ['api/platform/base-app.js', 'http/base-app.js'],
    ].map(load),
  )
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'info',
    RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '1000000000',
  })
  const handle = openDatabase(config.databaseUrl)
  const services = await buildServices({ config, db: handle.db, engine: handle.engine })
  const logger = loggerOptions(config, pino.destination({ dest: join(dir, `${name}.log`), sync: false }))
  const app: FastifyInstance = await buildApp({ config, db: handle.db, services, logger })
  await app.ready()
  // Services given to an app are closed by whoever built them (here); a base from before services.close() had
  // nothing more to close than the app.
  const close = async () => {
    await app.close()
    await services.close?.()
    await handle.close()
  }
  return { app, close }
}

async function main(): Promise<void> {
  const headDist = await buildWorkingTree()
  const baseDist = await buildRevision(args.base!)
  const databaseUrl = join(dir, 'compare.db')
  // No subscribed account's scenario here: its endpoint's address is never called.
  const seeded = await seed({ databaseUrl, pets: 10_000, deepRows: 20_000, receiverUrl: 'http://127.0.0.1:9/unused' })
  const scenario = scenarios(seeded).find((s) => s.name === args.scenario && s.listener === 'pets')
  if (!scenario)
    throw new Error(
      `--scenario: one of ${scenarios(seeded)
        .filter((s) => s.listener === 'pets')
        .map((s) => s.name)
        .join(', ')}`,
    )
  const variants = [
    { name: 'base', ...(await appOf(baseDist, 'base', databaseUrl)), cpu: [] as number[] },
    { name: 'this', ...(await appOf(headDist, 'this', databaseUrl)), cpu: [] as number[] },
  ]
  let n = 0
  const request = (): InjectOptions => ({
    method: scenario.method,
    url: scenario.path,
    headers: scenario.uniqueIdempotencyKey
      ? { ...scenario.headers, 'idempotency-key': `compare-${n++}` }
      : scenario.headers,
    ...(scenario.body === undefined ? {} : { payload: scenario.body }),
  })
  const batch = async (app: FastifyInstance, count: number) => {
    for (let sent = 0; sent < count; sent += CONCURRENCY) {
      const responses = await Promise.all(Array.from({ length: CONCURRENCY }, () => app.inject(request())))
      const wrong = responses.find((r) => r.statusCode !== scenario.expectStatus)
      if (wrong)
        throw new Error(`${scenario.name}: expected ${scenario.expectStatus}, got ${wrong.statusCode} ${wrong.body}`)
    }
  }
  const size = Number(args.batch)
  for (const v of variants) await batch(v.app, 5 * size)
  for (let round = 0; round < Number(args.rounds); round++) {
    // Alternate which goes first, so neither always follows the other's garbage.
    for (const v of round % 2 === 0 ? variants : [...variants].reverse()) {
      const before = process.cpuUsage()
      await batch(v.app, size)
      const used = process.cpuUsage(before)
      v.cpu.push((used.user + used.system) / size)
    }
  }
  const [base, current] = variants as [(typeof variants)[0], (typeof variants)[0]]
  const ratio = median(current.cpu.map((c, i) => c / base.cpu[i]!))
  process.stdout.write(
    `${scenario.name}: CPU µs per injected request, ` +
      `median of ${args.rounds} batches of ${size}: base (${args.base}) ${median(base.cpu).toFixed(1)}, ` +
      `this ${median(current.cpu).toFixed(1)}; this ÷ base, median of pairs: ${ratio.toFixed(3)}\n`,
  )
  for (const v of variants) await v.close()
}

try {
  await main()
} finally {
  try {
    execFileSync('git', ['worktree', 'remove', '--force', join(dir, 'base')], { cwd: root, stdio: 'ignore' })
  } catch {
    // No worktree was made (the run failed before).
  }
  rmSync(dir, { recursive: true, force: true })
}
