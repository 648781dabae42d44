// PostgreSQL and Redis for a benchmark run, found or started as `.ci/run` does: TEST_DATABASE_URL, or the local
// PostgreSQL at 127.0.0.1:5432 (user postgres); TEST_REDIS_URL, or a redis-server of the run's own on a free port
// (no persistence; started by the same helper as the tests' own), stopped when the run ends. What cannot be had
// is reported, and its targets are skipped.
import pg from 'pg'
import { redisServer } from '../test/helpers/redis-server.js'

const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432/postgres'

interface BackingServices {
  postgresUrl?: string
  redisUrl?: string
  /** Why a service is missing (for the report's "skipped" lines). */
  missing: string[]
  stop: () => Promise<void>
}

async function reachablePostgres(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 })
  try {
    await client.connect()
    return undefined
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  } finally {
    await client.end().catch(() => {})
  }
}

/** A redis-server of the run's own on a free port (the test suites' helper), stopped at the end of the run. */
async function ownRedis(): Promise<{ url: string; stop: () => Promise<void> } | { error: string }> {
  // Stopped by the caller, not by a test's `after`.
  const server = await redisServer({ after: () => {} })
  try {
    await server.start()
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) }
  }
  return { url: server.url, stop: server.stop }
}

export async function backingServices(): Promise<BackingServices> {
  const missing: string[] = []
  const stops: (() => Promise<void>)[] = []
  let redisUrl = process.env.TEST_REDIS_URL
  if (!redisUrl) {
    const own = await ownRedis()
    if ('error' in own) missing.push(`Redis: TEST_REDIS_URL is not set and ${own.error}`)
    else {
      redisUrl = own.url
      stops.push(own.stop)
    }
  }
  let postgresUrl: string | undefined = process.env.TEST_DATABASE_URL ?? LOCAL_POSTGRES
  const unreachable = await reachablePostgres(postgresUrl)
  if (unreachable !== undefined) {
    missing.push(`PostgreSQL: ${postgresUrl} is unreachable (${unreachable}); set TEST_DATABASE_URL`)
    postgresUrl = undefined
  }
  return { postgresUrl, redisUrl, missing, stop: async () => void (await Promise.all(stops.map((stop) => stop()))) }
}
