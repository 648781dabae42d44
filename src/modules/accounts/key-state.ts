// Whether a key is usable at a given instant, and if not, why: one rule for the authenticator (per request),
// for listings (the `state` column) and for roll/revoke. Times are ISO instants as stored.

export type KeyState = 'active' | 'expired' | 'revoked'

export interface KeyLifetime {
  revokedAt: string | null
  expiresAt: string | null
  /** Set on a rolled key: it is refused from this instant on. */
  graceEndsAt: string | null
}

/** Why the key is refused at `now` (a message for the 401 that never repeats the credential), or undefined. */
export function refusalReason(key: KeyLifetime, now: number): string | undefined {
  if (key.revokedAt !== null) return 'This API key was revoked.'
  const expires = key.expiresAt === null ? Infinity : Date.parse(key.expiresAt)
  const graceEnds = key.graceEndsAt === null ? Infinity : Date.parse(key.graceEndsAt)
  // Whichever end came first is the reason.
  if (graceEnds <= expires && now >= graceEnds)
    return `This API key was rolled; its grace period ended at ${key.graceEndsAt}.`
  if (now >= expires) return `This API key expired at ${key.expiresAt}.`
  return undefined
}

export function keyState(key: KeyLifetime, now: number): KeyState {
  if (key.revokedAt !== null) return 'revoked'
  return refusalReason(key, now) === undefined ? 'active' : 'expired'
}

/** The start of the minute containing `now`, in epoch milliseconds (`last_used_at` holds it as an ISO instant). */
export function minuteOf(now: number): number {
  return now - (now % 60_000)
}
