import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../config.js'
import { createFallbackStore } from './fallback.store.js'
import { createMemoryStore } from './memory.store.js'
import type { RateLimitStore } from './rate-limit.store.js'
import { createRedisStore } from './redis.store.js'

/** In memory, or in Redis (with a per-instance fallback) when REDIS_URL is set. Connects before returning. */
export async function createRateLimitStore(config: Config, log: FastifyBaseLogger): Promise<RateLimitStore> {
  if (!config.redisUrl) return createMemoryStore()
  const redis = createRedisStore({ url: config.redisUrl, prefix: config.redisPrefix })
  await redis.ready().catch((err: unknown) => log.warn({ err }, 'Redis is not reachable at start; limiting per instance until it is'))
  return createFallbackStore({ primary: redis, fallback: createMemoryStore(), divisor: config.fallbackDivisor, log })
}
