// The state of each backend, in the words /readyz and /metrics use: the database `ok` or `unavailable`, Redis
// `ok`, `degraded` (configured, not answering: the per-process fallback limits) or `off` (not configured). Only the
// state: a driver's message names the host and port it failed to reach, which is nobody's business outside.
import { sql, type Kysely } from 'kysely'
import type { Database } from '../db/schema.js'

export type DatabaseState = 'ok' | 'unavailable'
export type RedisState = 'ok' | 'degraded' | 'off'

/** A probe that neither answers nor fails within this time counts as failed (a database that hangs). */
const PROBE_TIMEOUT_MS = 2_000

async function answers(probe: () => Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), PROBE_TIMEOUT_MS)
  })
  try {
    await Promise.race([probe(), late])
    return true
  } catch {
    return false
  } finally {
    clearTimeout(timer)
  }
}

export async function databaseState(db: Kysely<Database>): Promise<DatabaseState> {
  return (await answers(() => sql`select 1`.execute(db))) ? 'ok' : 'unavailable'
}

/**
 * `store` is the rate-limit store: with Redis configured its ping fails while its breaker is open, so `degraded`
 * means what the limits do, not only whether a PING would pass.
 */
export async function redisState(
  redisUrl: string | undefined,
  store: { ping(): Promise<unknown> },
): Promise<RedisState> {
  if (!redisUrl) return 'off'
  return (await answers(() => store.ping())) ? 'ok' : 'degraded'
}
