// Log-in throttling, in the database so every instance counts the same failures: after 10 failed log-ins for
// one address from one client within 15 minutes, every further attempt (the right password included) is
// answered 429 until the oldest of those failures is 15 minutes old.
import type { Clock } from '../clock.js'
import { PortalError } from './reply.js'
import type { PortalRepository } from './portal.repository.js'

export const LOGIN_FAILURES_ALLOWED = 10
export const LOGIN_WINDOW_MS = 15 * 60 * 1000

export function createLoginThrottle({ repo, clock }: { repo: PortalRepository; clock: Clock }) {
  return {
    /** Throws the 429 page when this email and client have used up their failures. */
    async check(who: { email: string; address: string }): Promise<void> {
      const now = clock.now()
      await repo.purgeFailures(now - LOGIN_WINDOW_MS)
      const { count, oldest } = await repo.failuresSince({ ...who, since: now - LOGIN_WINDOW_MS })
      if (count < LOGIN_FAILURES_ALLOWED) return
      const retryAfter = Math.max(1, Math.ceil((oldest! + LOGIN_WINDOW_MS - now) / 1000))
      throw new PortalError(429, 'Too many attempts', `Too many failed log-ins for this address. Try again in ${Math.ceil(retryAfter / 60)} minutes, or reset your password.`, {
        'retry-after': String(retryAfter),
      })
    },
    failed: (who: { email: string; address: string }) => repo.recordFailure(who),
  }
}
