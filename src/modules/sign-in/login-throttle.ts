// Log-in throttling for the portal and the console, in the database so every instance counts the same failures.
// Two limits, each over a window of 15 minutes:
// - per email and client address: after 10 failures every further attempt (the right password included) is
//   answered 429 until the oldest of them is 15 minutes old (guessing one person's password);
// - per client address, across every email: after 30 failures, the same (password spraying over many accounts).
// A password reset (the portal's) lifts the address limit for that email for the rest of the window: a person
// behind the same address as an attacker can still get in.
// Each attempt is recorded as a failure *before* its password is checked, then counted with the others, and its
// row is forgotten if the password was right: concurrent guesses (many requests sent at once) are each counted by
// the ones after them, so no more than the limit can pass the check before the failures are on record. Checking
// first and recording after let every request of a burst pass (the same reason as operators/code-attempts.ts).
import type { Clock } from '../../kernel/clock.js'
import { TooManyLogins } from './login-throttle.errors.js'

export const LOGIN_FAILURES_ALLOWED = 10
const ADDRESS_FAILURES_ALLOWED = 30
export const LOGIN_WINDOW_MS = 15 * 60 * 1000

/** Where a site keeps its failed log-ins (portal_login_failures, operator_login_failures). */
export interface LoginFailuresStore {
  failuresSince(input: {
    email: string
    address: string
    since: number
  }): Promise<{ count: number; oldest: number | undefined }>
  failuresFromAddressSince(input: {
    address: string
    since: number
  }): Promise<{ count: number; oldest: number | undefined }>
  /** Records a failed log-in; `forget` removes that one row again. */
  recordFailure(input: { email: string; address: string }): Promise<{ forget: () => Promise<void> }>
  purgeFailures(before: number): Promise<void>
}

interface LoginAttempt {
  email: string
  address: string
  /** When the password of the account with this email was last changed (epoch ms), if there is one. */
  passwordChangedAt?: number | bigint | null
}

/** `advice`: what the 429 page suggests besides waiting (the portal: resetting the password). */
export function createLoginThrottle({
  store,
  clock,
  advice = '',
}: {
  store: LoginFailuresStore
  clock: Clock
  advice?: string
}) {
  const refuse = (oldest: number, now: number, what: string) => {
    const retryAfter = Math.max(1, Math.ceil((oldest + LOGIN_WINDOW_MS - now) / 1000))
    return new TooManyLogins(retryAfter, what, advice)
  }

  return {
    /**
     * Counts this attempt as a failure, then throws TooManyLogins (forgetting it) when this email and client, or
     * this client alone, are past their failures. Call `succeeded` when the password (and second factor) was
     * right; a wrong one needs nothing more: it is already counted.
     */
    async attempt(who: LoginAttempt): Promise<{ succeeded: () => Promise<void> }> {
      const now = clock.now()
      const since = now - LOGIN_WINDOW_MS
      await store.purgeFailures(since)
      const provisional = await store.recordFailure({ email: who.email, address: who.address })
      const refused = async (oldest: number | undefined, what: string) => {
        await provisional.forget()
        return refuse(oldest ?? now, now, what)
      }
      const mine = await store.failuresSince({ email: who.email, address: who.address, since })
      if (mine.count > LOGIN_FAILURES_ALLOWED) throw await refused(mine.oldest, 'for this address')
      const resetRecently = who.passwordChangedAt != null && Number(who.passwordChangedAt) > since
      if (!resetRecently) {
        const fromAddress = await store.failuresFromAddressSince({ address: who.address, since })
        if (fromAddress.count > ADDRESS_FAILURES_ALLOWED) throw await refused(fromAddress.oldest, 'from your network')
      }
      return { succeeded: provisional.forget }
    },
  }
}
