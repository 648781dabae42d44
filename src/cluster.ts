// `serve --workers N`: N processes on one machine behind one port (node:cluster). The primary migrates the
// database once, forks the workers, forwards SIGTERM/SIGINT to them and exits when they all have: with 0 only if
// every worker stopped cleanly (exit 0), so a supervisor sees a failed shutdown of any of them.
// Config refuses N > 1 without REDIS_URL: in-memory counters would give every worker the whole quota.
import cluster from 'node:cluster'
import type { Config } from './config.js'
import { openDatabase } from './db/database.js'
import { migrateToLatest } from './db/migrate.js'
import { startServer, type Interface } from './server.js'

export async function serve(config: Config, options: { only?: Interface }): Promise<void> {
  if (config.workers <= 1 || cluster.isWorker) {
    await startServer(config, { only: options.only, skipMigrations: cluster.isWorker })
    return
  }
  const handle = openDatabase(config.databaseUrl, { poolSize: 1 })
  await migrateToLatest(handle.db)
  await handle.close()

  let stopping = false
  let failed = false
  const stop = (signal: NodeJS.Signals) => {
    stopping = true
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal)
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
  cluster.on('exit', (worker, code, signal) => {
    if (!stopping) {
      process.stderr.write(`petstore: worker ${worker.process.pid} exited (${signal ?? code}); starting another\n`)
      cluster.fork()
    } else {
      if (code !== 0) failed = true
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(failed ? 1 : 0)
    }
  })
  for (let i = 0; i < config.workers; i++) cluster.fork()
}
