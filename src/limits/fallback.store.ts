// Redis with a safety net: when Redis cannot answer (down, slow, unreachable), each instance limits on its
// own, in memory, with every quota divided by `divisor` (so N ≤ divisor instances together stay within the
// quota). One warning per outage; the first answer from Redis again switches back, without a restart.
import type { FastifyBaseLogger } from 'fastify'
import type { RateLimitStore, WindowSpec } from './rate-limit.store.js'

export function createFallbackStore({
  primary,
  fallback,
  divisor,
  log,
  down: startsDown = false,
}: {
  primary: RateLimitStore
  fallback: RateLimitStore
  divisor: number
  log: FastifyBaseLogger
  /** The primary is known to be down already (and that was logged): the outage is not reported again. */
  down?: boolean
}): RateLimitStore & { degraded: () => boolean } {
  let down = startsDown
  const scaled = (windows: WindowSpec[]) => windows.map((w) => ({ ...w, limit: Math.max(1, Math.floor(w.limit / divisor)) }))

  async function attempt<T>(viaPrimary: () => Promise<T>, viaFallback: () => Promise<T>): Promise<T> {
    try {
      const result = await viaPrimary()
      if (down) {
        down = false
        log.warn('rate-limit store reachable again: limits are shared across instances again')
      }
      return result
    } catch (err) {
      if (!down) {
        down = true
        log.warn({ err }, `rate-limit store unreachable: limiting per instance at 1/${divisor} of each quota until it is back`)
      }
      return viaFallback()
    }
  }

  return {
    degraded: () => down,
    consume: (input) => attempt(() => primary.consume(input), () => fallback.consume({ ...input, windows: scaled(input.windows) })),
    usage: (input) => attempt(() => primary.usage(input), () => fallback.usage({ ...input, windows: scaled(input.windows) })),
    bannedUntil: (input) => attempt(() => primary.bannedUntil(input), () => fallback.bannedUntil(input)),
    unban: async (subject) => {
      const [a, b] = await Promise.all([attempt(() => primary.unban(subject), async () => false), fallback.unban(subject)])
      return a || b
    },
    // Readiness reports Redis itself: the fallback keeps serving, but an operator should know.
    ping: () => primary.ping(),
    close: async () => {
      await Promise.all([primary.close(), fallback.close()])
    },
  }
}
