// Plan requests per client address: at most 10 in a clock hour (UTC). Counted in the rate-limit store
// (src/limits/), so every instance counts the same ones: in Redis when REDIS_URL is set, else in this process, which
// is then the only one (config refuses several workers without Redis). Only a request that passed every other check
// is counted (the plan requests service asks last, before it stores one), so a mistyped note costs nothing; the store
// admits or refuses in one atomic step, so a burst sent at once still gets no more than 10 through.
import type { Clock } from '../../kernel/clock.js'
import { retryAfterSeconds } from '../limits/rate-limit.headers.js'
import type { RateLimitStore, WindowSpec } from '../limits/rate-limit.store.js'

export const PLAN_REQUESTS_PER_HOUR = 10
const windows: WindowSpec[] = [{ name: 'hour', limit: PLAN_REQUESTS_PER_HOUR, seconds: 3600 }]

export function createPlanRequestThrottle({ store, clock }: { store: RateLimitStore; clock: Clock }) {
  return {
    /** Counts one request from `address`: undefined when admitted, else the seconds until one would be. */
    async take(address: string): Promise<number | undefined> {
      const now = clock.now()
      const result = await store.consume({ subject: `plan-requests:${address}`, windows, now })
      return result.admitted ? undefined : retryAfterSeconds(result.windows, now).seconds
    },
  }
}

export type PlanRequestThrottle = ReturnType<typeof createPlanRequestThrottle>
