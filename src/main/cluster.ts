// `serve --workers N`: N processes on one machine behind one port (node:cluster). The primary migrates the
// database once, forks the workers, prints one start-up banner for the instance once they all listen (on stderr,
// or stdout on a terminal: ops/log-output.ts), answers their /metrics scrapes for the whole instance, forwards
// SIGTERM/SIGINT to them and exits when they all have:
// with 0 only if every worker stopped cleanly (exit 0), so a supervisor sees a failed shutdown of any of them.
//
// A worker that crashes is started again after a back-off that grows with the crashes of the last minute. A worker
// that fails before it listens (a taken port, a database that refuses it) tells the primary why; at the instance's
// start the first such failure, later MAX_START_FAILURES in a row, stop the instance with that reason, in one
// line, rather than starting workers forever.
// Config refuses N > 1 without REDIS_URL: in-memory counters would give every worker the whole quota.
import cluster, { type Worker } from 'node:cluster'
import type { Config } from '../kernel/config.js'
import { claimEnvironment } from '../db/settings.js'
import { answerMetricsRequests } from '../ops/metrics.js'
import { bannerStream } from '../ops/log-output.js'
import { openAndMigrate, startServer, type Interface } from './server.js'
import { reasonOf } from '../kernel/reason.js'
import { checkListeners } from './listener-check.js'

const READY = 'petstore:ready'
const FAILED = 'petstore:failed'
const MAX_START_FAILURES = 3
const START_RETRY_MS = 500
const CRASH_BACKOFF_MS = 250
const MAX_BACKOFF_MS = 30_000
/** Which worker slot a process fills (its replacement keeps it): slot 0 reports a Redis missing at start. */
const SLOT_ENV = 'PETSTORE_WORKER_SLOT'

/** A worker's banner: its listeners, and (from the worker that made the local account) the key it printed. */
function splitBanner(banner: string): [string, string | undefined] {
  const at = banner.indexOf('\nCreated a local account')
  return at < 0 ? [banner, undefined] : [banner.slice(0, at), banner.slice(at)]
}

type WorkerMessage = { type: typeof READY; banner: string } | { type: typeof FAILED; reason: string }

async function runWorker(config: Config, only: Interface | undefined): Promise<void> {
  const send = (message: WorkerMessage) => new Promise<void>((resolve) => process.send!(message, () => resolve()))
  try {
    await startServer(config, {
      only,
      skipMigrations: true,
      quietRedis: process.env[SLOT_ENV] !== '0',
      announce: (banner) => void send({ type: READY, banner }),
    })
  } catch (error) {
    // The primary says it, once for the instance; then this worker is gone.
    await send({ type: FAILED, reason: reasonOf(error) })
    process.exit(1)
  }
}

export async function serve(config: Config, options: { only?: Interface; create?: boolean }): Promise<void> {
  if (cluster.isWorker) return runWorker(config, options.only)
  // Before the database is touched: every address the instance will listen on can be bound (each named by its
  // setting when it cannot), so a wrong HOST or a taken PORT leaves no migration behind.
  await checkListeners(config, options.only)
  if (config.workers <= 1) return startServer(config, { only: options.only, create: options.create })
  const handle = await openAndMigrate(config, { poolSize: 1, create: options.create })
  try {
    await claimEnvironment(handle.db, config.environment, handle.location)
  } finally {
    await handle.close()
  }
  answerMetricsRequests()

  const slots = new Map<Worker, number>()
  const ready = new Set<Worker>()
  const reasons = new Map<Worker, string>()
  let announced = false
  let createdKey: string | undefined
  let startFailures = 0
  const crashes: number[] = []
  let stopping = false
  let failed = false

  const fork = (slot: number) => slots.set(cluster.fork({ [SLOT_ENV]: String(slot) }), slot)
  const stop = (signal: NodeJS.Signals) => {
    stopping = true
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal)
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(failed ? 1 : 0)
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)

  cluster.on('message', (worker, message: WorkerMessage) => {
    if (message?.type === FAILED) reasons.set(worker, message.reason)
    if (message?.type !== READY) return
    ready.add(worker)
    startFailures = 0
    // One banner per instance, once every worker listens. The worker that made the local account (any of them, in
    // any order) adds its key: kept until then, so the listeners are never printed twice.
    const [listeners, key] = splitBanner(message.banner)
    if (key) createdKey = key
    if (!announced && ready.size === config.workers) {
      announced = true
      bannerStream().write(`${listeners.replace(/\n/, `  ·  ${config.workers} workers\n`)}${createdKey ?? ''}`)
    } else if (announced && key) {
      bannerStream().write(key)
    }
  })

  cluster.on('exit', (worker, code, signal) => {
    const slot = slots.get(worker) ?? 0
    const wasReady = ready.delete(worker)
    slots.delete(worker)
    if (stopping) {
      // A worker that was serving and did not stop cleanly is named. One still starting had nothing to finish: ended
      // by the signal it is fine; failing to start (as its siblings did on a taken port) it was already reported.
      if (code !== 0 && wasReady)
        process.stderr.write(`petstore: worker ${worker.process.pid} stopped with ${signal ?? `exit code ${code}`}\n`)
      if (code !== 0 && (wasReady || signal === null)) failed = true
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(failed ? 1 : 0)
      return
    }
    if (!wasReady) {
      const reason = reasons.get(worker) ?? `it exited (${signal ?? code}) before listening`
      // Before the instance was ever up, the first failure says the set-up is wrong (a taken port): stop at once.
      if (!announced || ++startFailures >= MAX_START_FAILURES) {
        process.stderr.write(
          `petstore: a worker could not start${announced ? ` (${startFailures} times in a row)` : ''}: ${reason}\n`,
        )
        failed = true
        stop('SIGTERM')
        return
      }
      setTimeout(() => fork(slot), START_RETRY_MS * startFailures)
      return
    }
    const now = Date.now()
    crashes.push(now)
    while (crashes[0]! < now - 60_000) crashes.shift()
    const delay = Math.min(MAX_BACKOFF_MS, CRASH_BACKOFF_MS * 2 ** (crashes.length - 1))
    process.stderr.write(
      `petstore: worker ${worker.process.pid} exited (${signal ?? code}); starting another in ${delay} ms\n`,
    )
    setTimeout(() => {
      if (!stopping) fork(slot)
    }, delay)
  })
  for (let slot = 0; slot < config.workers; slot++) fork(slot)
}
