// PostgreSQL and Redis for a benchmark run, found or started as `.ci/run` does: TEST_DATABASE_URL, or the local
// PostgreSQL at 127.0.0.1:5432 (user postgres); TEST_REDIS_URL, or a redis-server of the run's own on a free port
// (no persistence), stopped when the run ends. What cannot be had is reported, and its targets are skipped.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { freePort } from './processes.js'

const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432/postgres'

export interface BackingServices {
  postgresUrl?: string
  redisUrl?: string
  /** Why a service is missing (for the report's "skipped" lines). */
  missing: string[]
  stop: () => void
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

async function ownRedis(): Promise<{ url: string; stop: () => void } | { error: string }> {
  if (spawnSync('sh', ['-c', 'command -v redis-server'], { stdio: 'ignore' }).status !== 0) return { error: 'redis-server is not installed' }
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'petstore-bench-redis-'))
  const pidfile = join(dir, 'redis.pid')
  const args = ['--daemonize', 'yes', '--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--pidfile', pidfile, '--dir', dir]
  const started = spawn('redis-server', args, { stdio: 'ignore' })
  await new Promise((resolve) => started.once('exit', resolve))
  for (let i = 0; i < 50; i++) {
    if (spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'ping'], { stdio: 'ignore' }).status === 0) {
      const stop = () => {
        try {
          process.kill(Number(readFileSync(pidfile, 'utf8')))
        } catch {}
        rmSync(dir, { recursive: true, force: true })
      }
      return { url: `redis://127.0.0.1:${port}`, stop }
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  rmSync(dir, { recursive: true, force: true })
  return { error: `redis-server did not answer on port ${port}` }
}

export async function backingServices(): Promise<BackingServices> {
  const missing: string[] = []
  const stops: (() => void)[] = []
  let redisUrl = process.env.TEST_REDIS_URL
  if (!redisUrl) {
    const own = await ownRedis()
    if ('error' in own) missing.push(`Redis: ${own.error} and TEST_REDIS_URL is not set`)
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
  return { postgresUrl, redisUrl, missing, stop: () => stops.forEach((stop) => stop()) }
}
