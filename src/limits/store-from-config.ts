import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../config.js'
import { createFallbackStore } from './fallback.store.js'
import { createMemoryStore } from './memory.store.js'
import type { RateLimitStore } from './rate-limit.store.js'

/** In memory, or in Redis (with a per-instance fallback) when REDIS_URL is set. Connects before returning. */
export async function createRateLimitStore(config: Config, log: FastifyBaseLogger): Promise<RateLimitStore> {
  if (!config.redisUrl) return createMemoryStore()
  // Loaded only when configured: the Redis client costs ~20 MB of memory in a process that does not use it.
  const { createRedisStore } = await import('./redis.store.js')
  const redis = createRedisStore({ url: config.redisUrl, prefix: config.redisPrefix })
  const reachable = await redis.ready().then(
    () => true,
    (err: unknown) => {
      log.warn({ err }, `Redis is not reachable at start: limiting per instance at 1/${config.fallbackDivisor} of each quota until it is`)
      return false
    },
  )
  // An outage that starts before the first request is still one outage: warned about here, once.
  return createFallbackStore({ primary: redis, fallback: createMemoryStore(), divisor: config.fallbackDivisor, log, down: !reachable })
}
