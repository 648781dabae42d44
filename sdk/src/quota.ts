// What an answer says of the key's quota: the spec's X-RateLimit-Limit, -Remaining and -Reset (Unix epoch seconds),
// and how long until that window resets, as a delay. The delay comes from the IETF draft's `RateLimit: …;t=<seconds>`
// where the answer has it, else from Reset − the answer's `Date`: both are the service's own clock, so a client
// whose clock is off by minutes still waits the right time.

/** The quota window with the fewest requests left, from X-RateLimit-Limit, -Remaining and -Reset. */
export interface RateLimit {
  limit: number
  remaining: number
  /** When the window resets (X-RateLimit-Reset is Unix epoch seconds). */
  reset: Date
}

export function rateLimitOf(headers: Headers): RateLimit | undefined {
  const [limit, remaining, reset] = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].map((name) =>
    Number(headers.get(name) ?? Number.NaN),
  )
  if (!Number.isFinite(limit) || !Number.isFinite(remaining) || !Number.isFinite(reset)) return undefined
  return { limit: limit!, remaining: remaining!, reset: new Date(reset! * 1000) }
}

/** Milliseconds from receiving the answer until its quota window resets. */
export function msUntilReset(headers: Headers, quota: RateLimit, now = Date.now()): number {
  const t = /;\s*t\s*=\s*(\d+)/.exec(headers.get('ratelimit') ?? '')?.[1]
  if (t !== undefined) return Number(t) * 1000
  const served = Date.parse(headers.get('date') ?? '')
  return Math.max(0, quota.reset.getTime() - (Number.isNaN(served) ? now : served))
}

/**
 * Extra time added to a wait for a Retry-After or a reset, spread over up to 1 s or 10 % of the wait, whichever is
 * more: calls that queued behind one answer do not all arrive at the same instant. `random` in [0, 1).
 */
export function jitterMs(waitMs: number, random: number = Math.random()): number {
  return random * Math.max(1000, waitMs * 0.1)
}
