// Validation of what a caller chooses for a key (the CLI and the portal pass it through unchanged): one set of
// rules, with messages fit to show to the person who typed the value. The plain-text rule for names lives here
// too, and the CLI applies it to account names.

export class KeyInputError extends Error {}

/** The account already has `max` (or more) active keys; each caller says how to make room in its own words. */
export class KeyLimitError extends KeyInputError {
  constructor(
    readonly active: number,
    readonly max: number,
  ) {
    super(`the account has ${active} active keys, the most it may have is ${max}; revoke one it no longer needs first`)
  }
}

const KEY_NAME_MAX = 100
/** An account's name (the CLI's `--name`): plain text too, as long as a key's. */
export const ACCOUNT_NAME_MAX = KEY_NAME_MAX
/** The longest grace period a rolled key can get: 7 days. */
const MAX_GRACE_SECONDS = 604_800

// An ISO 8601 instant: a date, a time and a zone (Z or an offset); a bare date or a local time is ambiguous.
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/

// Characters that do not belong in a name people read: controls (C0, C1, DEL), Unicode format characters
// (bidi overrides such as U+202E that reorder what is shown, zero-width characters that hide differences) and the
// line and paragraph separators. A listing, a log line or a terminal would show such a name as something else.
const NOT_PLAIN_TEXT = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u

/**
 * Why `value` is not plain text (naming the first offending character, e.g. "U+202E"), or undefined when it is.
 * One rule for every name a person gives: key names here, account names in the CLI.
 */
export function plainTextProblem(value: string): string | undefined {
  const found = NOT_PLAIN_TEXT.exec(value)
  if (!found) return undefined
  const code = `U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`
  return (
    `cannot hold control characters, invisible formatting characters (such as bidi overrides or zero-width ` +
    `spaces) or line separators; found ${code}`
  )
}

/** The name to store: trimmed, null when absent or blank; plain text only (it is shown in listings). */
export function checkKeyName(name: string | undefined): string | null {
  const trimmed = name?.trim() ?? ''
  if (trimmed === '') return null
  if ([...trimmed].length > KEY_NAME_MAX) throw new KeyInputError(`a key name has at most ${KEY_NAME_MAX} characters`)
  const problem = plainTextProblem(trimmed)
  if (problem) throw new KeyInputError(`a key name ${problem}`)
  return trimmed
}

/** The expiry to store (normalised to UTC), or null; it must be an ISO instant after `now`. */
export function checkExpiry(expiresAt: string | undefined, now: number): string | null {
  if (expiresAt === undefined) return null
  const at = ISO_INSTANT.test(expiresAt) ? Date.parse(expiresAt) : NaN
  if (Number.isNaN(at))
    throw new KeyInputError(
      `the expiry must be an ISO 8601 instant with a time zone, like 2027-06-30T00:00:00Z; got "${expiresAt}"`,
    )
  if (at <= now) throw new KeyInputError(`the expiry ${new Date(at).toISOString()} is not in the future`)
  return new Date(at).toISOString()
}

export function checkGraceSeconds(seconds: number): number {
  if (!Number.isSafeInteger(seconds) || seconds < 0 || seconds > MAX_GRACE_SECONDS) {
    throw new KeyInputError(
      `the grace period must be a whole number of seconds from 0 to ${MAX_GRACE_SECONDS} (7 days); got ${seconds}`,
    )
  }
  return seconds
}
