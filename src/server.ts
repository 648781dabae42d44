// Runs the service: opens and migrates the database, builds the app, listens, and shuts down gracefully.
import closeWithGrace from 'close-with-grace'
import { createAccountsRepository } from './accounts/accounts.repository.js'
import { bootstrapLocalAccount } from './accounts/bootstrap.js'
import { buildApp } from './app.js'
import { systemClock } from './clock.js'
import type { Config } from './config.js'
import { openDatabase } from './db/database.js'
import { migrateToLatest } from './db/migrate.js'

/** How long in-flight requests get to finish after SIGTERM/SIGINT before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000

export async function startServer(config: Config, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const handle = openDatabase(config.databaseUrl)
  await migrateToLatest(handle.db)
  const local = await bootstrapLocalAccount({ db: handle.db, accounts: createAccountsRepository({ db: handle.db, clock: systemClock }), config })
  const app = await buildApp({ config, db: handle.db })

  closeWithGrace({ delay: SHUTDOWN_GRACE_MS }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an uncaught error')
    else app.log.info({ signal }, 'shutting down')
    await app.close()
    await handle.close()
  })

  await app.listen({ host: config.host, port: config.port })
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}/v1`
  out.write(`Pet store API (${config.environment}) at ${base}  ·  docs at ${base.replace(/\/v1$/, '/docs')}  ·  database ${handle.location}\n`)
  if (local) {
    out.write(
      `\nCreated a local account (${local.accountId}, plan free) and its API key. It is shown once, now:\n\n  ${local.key}\n\n` +
        `Try it:\n  curl -H "Authorization: Bearer ${local.key}" ${base}/pets\n\n`,
    )
  }
}
