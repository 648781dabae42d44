// The app built in-process over a database file that a CLI or server process also uses.
import type { FastifyInstance } from 'fastify'
import type { Clock } from '../../src/kernel/clock.js'
import { buildApp } from '../../src/main/api-app.js'
import { loadConfig } from '../../src/kernel/config.js'
import { openDatabase } from '../../src/db/database.js'
import { buildServices, type Services } from '../../src/main/services.js'

export async function appOnFile(
  t: { after: (fn: () => Promise<void>) => void },
  file: string,
  env: Record<string, string> = {},
  /** The app's clock (a test's manual one, where a count must not cross a minute's window); the system's by default. */
  clock?: Clock,
): Promise<FastifyInstance> {
  const config = loadConfig({ LOG_LEVEL: 'silent', ...env, DATABASE_URL: file })
  const handle = openDatabase(config.databaseUrl)
  const app = await buildApp({
    config,
    db: handle.db,
    engine: handle.engine,
    logger: false,
    ...(clock ? { clock } : {}),
  })
  t.after(async () => {
    await app.close()
    await handle.close()
  })
  return app
}

/** The services, as the server builds them, over a database file that a CLI or server process also uses. */
export async function servicesOnFile(t: { after: (fn: () => Promise<void>) => void }, file: string): Promise<Services> {
  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: file })
  const handle = openDatabase(config.databaseUrl)
  const services = await buildServices({ config, db: handle.db, engine: handle.engine })
  t.after(async () => {
    await services.close()
    await handle.close()
  })
  return services
}
