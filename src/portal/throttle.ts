// Log-in throttling, in the database so every instance counts the same failures. Two limits, each over a window
// of 15 minutes:
// - per email and client address: after 10 failures every further attempt (the right password included) is
//   answered 429 until the oldest of them is 15 minutes old (guessing one account's password);
// - per client address, across every email: after 30 failures, the same (password spraying over many accounts).
// A password reset lifts both for that email (the failures are forgotten, and the address limit does not apply to
// it for the rest of the window): a person behind the same address as an attacker can still get in.
import type { Clock } from '../clock.js'
import { PortalError } from './reply.js'
import type { PortalRepository } from './portal.repository.js'

export const LOGIN_FAILURES_ALLOWED = 10
export const ADDRESS_FAILURES_ALLOWED = 30
export const LOGIN_WINDOW_MS = 15 * 60 * 1000

export interface LoginAttempt {
  email: string
  address: string
  /** When the password of the account with this email was last changed (epoch ms), if there is one. */
  passwordChangedAt?: number | bigint | null
}

export function createLoginThrottle({ repo, clock }: { repo: PortalRepository; clock: Clock }) {
  const refuse = (oldest: number, now: number, what: string) => {
    const retryAfter = Math.max(1, Math.ceil((oldest + LOGIN_WINDOW_MS - now) / 1000))
    return new PortalError(429, 'Too many attempts', `Too many failed log-ins ${what}. Wait ${Math.ceil(retryAfter / 60)} minutes before trying again, or reset your password.`, {
      'retry-after': String(retryAfter),
    })
  }

  return {
    /** Throws the 429 page when this email and client, or this client alone, have used up their failures. */
    async check(who: LoginAttempt): Promise<void> {
      const now = clock.now()
      const since = now - LOGIN_WINDOW_MS
      await repo.purgeFailures(since)
      const mine = await repo.failuresSince({ email: who.email, address: who.address, since })
      if (mine.count >= LOGIN_FAILURES_ALLOWED) throw refuse(mine.oldest!, now, 'for this address')
      const resetRecently = who.passwordChangedAt != null && Number(who.passwordChangedAt) > since
      if (resetRecently) return
      const fromAddress = await repo.failuresFromAddressSince({ address: who.address, since })
      if (fromAddress.count >= ADDRESS_FAILURES_ALLOWED) throw refuse(fromAddress.oldest!, now, 'from your network')
    },
    failed: (who: { email: string; address: string }) => repo.recordFailure(who),
  }
}
