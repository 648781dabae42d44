// Validation of what a caller chooses for a key (the CLI and the portal pass it through unchanged): one set of
// rules, with messages fit to show to the person who typed the value.

export class KeyInputError extends Error {}

export const KEY_NAME_MAX = 100
/** The longest grace period a rolled key can get: 7 days. */
export const MAX_GRACE_SECONDS = 604_800

// An ISO 8601 instant: a date, a time and a zone (Z or an offset); a bare date or a local time is ambiguous.
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/

/** The name to store: trimmed, null when absent or blank; no control characters (it is shown in listings). */
export function checkKeyName(name: string | undefined): string | null {
  const trimmed = name?.trim() ?? ''
  if (trimmed === '') return null
  if ([...trimmed].length > KEY_NAME_MAX) throw new KeyInputError(`a key name has at most ${KEY_NAME_MAX} characters`)
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) throw new KeyInputError('a key name cannot hold control characters')
  return trimmed
}

/** The expiry to store (normalised to UTC), or null; it must be an ISO instant after `now`. */
export function checkExpiry(expiresAt: string | undefined, now: number): string | null {
  if (expiresAt === undefined) return null
  const at = ISO_INSTANT.test(expiresAt) ? Date.parse(expiresAt) : NaN
  if (Number.isNaN(at)) throw new KeyInputError(`the expiry must be an ISO 8601 instant with a time zone, like 2027-06-30T00:00:00Z; got "${expiresAt}"`)
  if (at <= now) throw new KeyInputError(`the expiry ${new Date(at).toISOString()} is not in the future`)
  return new Date(at).toISOString()
}

export function checkGraceSeconds(seconds: number): number {
  if (!Number.isSafeInteger(seconds) || seconds < 0 || seconds > MAX_GRACE_SECONDS) {
    throw new KeyInputError(`the grace period must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS} (7 days); got ${seconds}`)
  }
  return seconds
}
