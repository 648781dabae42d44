// Start-up to the first answered request, the way an operator starts the service: `npm start` on a fresh SQLite
// file (so every migration is applied too), `node bin/petstore.js serve` the same without npm, and as the baseline of
// the same run a bare node:http server (bench/startup-baseline.mjs) started by node alone. Each is timed from spawn
// to the first 200 of GET /healthz (polled every 10 ms), the three alternating, round after round; medians.
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median } from './measure.js'
import { cpuSeconds, freePort } from './processes.js'

const root = fileURLToPath(new URL('..', import.meta.url))

export interface StartupResult {
  /** Median ms from spawn to the first answer. */
  npmStartMs: number
  nodeServeMs: number
  baselineMs: number
  /** Median CPU ms the service's process had used by its first answer (node bin/petstore.js serve). */
  serveCpuMs: number
  rounds: number
}

// On a fresh SQLite file each: --create makes it (serve refuses a path that does not exist without it).
const COMMANDS = {
  npmStart: ['npm', ['start', '--', '--create']],
  nodeServe: [process.execPath, ['bin/petstore.js', 'serve', '--create']],
  baseline: [process.execPath, ['bench/startup-baseline.mjs']],
} as const

async function timeToFirstAnswer(
  [command, args]: readonly [string, readonly string[]],
  dir: string,
): Promise<{ ms: number; cpuMs: number }> {
  const port = await freePort()
  const env = {
    ...process.env,
    DATABASE_URL: join(mkdtempSync(join(dir, 'startup-')), 'petstore.db'),
    PORT: String(port),
    MESSAGES_PORT: String(await freePort()),
    HOST: '127.0.0.1',
  }
  const started = performance.now()
  const child = spawn(command, args, { cwd: root, env, stdio: 'ignore' })
  try {
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`${command} ${args.join(' ')} exited with ${child.exitCode} before answering`)
      const answered = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
      if (answered) return { ms: performance.now() - started, cpuMs: cpuSeconds(child.pid!) * 1000 }
      if (performance.now() - started > 60_000)
        throw new Error(`${command} ${args.join(' ')} did not answer within 60 s`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  } finally {
    if (child.exitCode === null) {
      child.kill('SIGTERM')
      await new Promise((resolve) => child.once('exit', resolve))
    }
  }
}

export async function measureStartup({ rounds, dir }: { rounds: number; dir: string }): Promise<StartupResult> {
  const times = { npmStart: [] as number[], nodeServe: [] as number[], baseline: [] as number[] }
  const serveCpu: number[] = []
  for (let round = 0; round < rounds; round++) {
    times.npmStart.push((await timeToFirstAnswer(COMMANDS.npmStart, dir)).ms)
    const serve = await timeToFirstAnswer(COMMANDS.nodeServe, dir)
    times.nodeServe.push(serve.ms)
    serveCpu.push(serve.cpuMs)
    times.baseline.push((await timeToFirstAnswer(COMMANDS.baseline, dir)).ms)
  }
  const result = {
    npmStartMs: median(times.npmStart),
    nodeServeMs: median(times.nodeServe),
    baselineMs: median(times.baseline),
    serveCpuMs: median(serveCpu),
    rounds,
  }
  process.stdout.write(`  start-up: ${startupLine(result)}\n`)
  return result
}

export function startupLine(r: StartupResult): string {
  return (
    `npm start ${Math.round(r.npmStartMs)} ms, node ` +
    `bin/petstore.js serve ${Math.round(r.nodeServeMs)} ms (${Math.round(r.serveCpuMs)} ms CPU) ` +
    `to the first answer on a fresh SQLite file; bare node:http ${Math.round(r.baselineMs)} ms; ratio serve ÷ ` +
    `baseline ${(r.nodeServeMs / r.baselineMs).toFixed(2)} (medians of ${r.rounds} rounds)`
  )
}
