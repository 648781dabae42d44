import type { Kysely } from 'kysely'
import type { Database } from '../../db/schema.js'
import type { Logger } from '../../kernel/logger.js'
import type { Config } from '../../kernel/config.js'
import { createFallbackStore } from './fallback.store.js'
import { createMemoryStore } from './memory.store.js'
import { createPersistedStore } from './persisted.store.js'
import type { RateLimitStore } from './rate-limit.store.js'

/** Redis's address without credentials, safe to print. */
const redisLocation = (url: string) => {
  const parsed = new URL(url)
  return `${parsed.protocol}//${parsed.host}`
}

/**
 * In Redis (with a per-process fallback) when REDIS_URL is set, connected before returning. Without Redis: in memory,
 * kept in the embedded database given as `sqlite` (persisted.store.ts: a restart keeps the counts and bans).
 * `quiet`: say nothing if Redis is not reachable at start (a cluster worker: its primary has said it once).
 */
export async function createRateLimitStore(
  config: Config,
  log: Logger,
  options: { quiet?: boolean; sqlite?: Kysely<Database> } = {},
): Promise<RateLimitStore> {
  if (!config.redisUrl) return options.sqlite ? createPersistedStore({ db: options.sqlite, log }) : createMemoryStore()
  // Loaded only when configured: the Redis client costs ~20 MB of memory in a process that does not use it.
  const { createRedisStore } = await import('./redis.store.js')
  const redis = createRedisStore({
    url: config.redisUrl,
    prefix: config.redisPrefix,
    commandTimeoutMs: config.redisTimeoutMs,
  })
  // Each worker process of this instance takes its share of the instance's share.
  const divisor = config.fallbackDivisor * config.workers
  const reachable = await redis.ready().then(
    () => true,
    (err: unknown) => {
      // One line naming what is missing; the stack would say nothing more.
      if (!options.quiet) {
        log.warn(
          `Redis is not reachable ` +
            `at start (${redisLocation(config.redisUrl!)}: ${err instanceof Error ? err.message : String(err)}): ` +
            `limiting per process at 1/${divisor} of each quota until it is`,
        )
      }
      return false
    },
  )
  // An outage that starts before the first request is still one outage: warned about here, once.
  return createFallbackStore({ primary: redis, fallback: createMemoryStore(), divisor, log, down: !reachable })
}
