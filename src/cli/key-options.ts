// How `keys` commands read their options and show a key: the library's rules (key-input.ts, key-scopes.ts) applied
// while Commander parses, so a bad value is a usage error (exit 2) before the database is opened.
import { InvalidArgumentError } from 'commander'
import type { ApiKeyInfo } from '../modules/accounts/accounts.repository.js'
import { endsAt, shownState } from '../modules/accounts/key-display.js'
import { checkExpiry, checkGraceSeconds, KeyInputError } from '../modules/accounts/key-input.js'
import { checkScopes, hasAllScopes, splitScopes, type Scope } from '../modules/accounts/key-scopes.js'

export function describe(k: ApiKeyInfo, account: { suspended: boolean } = { suspended: false }): string {
  const name = k.name === null ? '' : `  "${k.name}"`
  // A rolled key reads as one (ROLLED, its real end), never "expires never" while it will stop working.
  const ended = k.revokedAt
    ? `  revoked ${k.revokedAt}`
    : k.graceEndsAt
      ? `  rolled (grace until ${k.graceEndsAt})`
      : ''
  return [
    `${k.id}${name}  ${k.prefix}…  ${k.environment}  ${shownState(k, account).toUpperCase()}`,
    // In the form --scopes takes.
    `scopes ${hasAllScopes(k.scopes) ? 'all' : k.scopes.join(',')}`,
    `created ${k.createdAt}`,
    `last used ${k.lastUsedAt ?? 'never'}`,
    `expires ${endsAt(k) ?? 'never'}${ended}`,
  ].join('  ')
}

/** `--grace SECONDS`: a whole number; the range is the library's rule (0 to 7 days). */
export function seconds(raw: string): number {
  if (!/^\d+$/.test(raw)) throw new InvalidArgumentError('It must be a whole number of seconds.')
  return asUsageError(() => checkGraceSeconds(Number(raw)))
}

/** `--expires`: the library's rule (an ISO 8601 instant in the future), checked before the database is opened. */
export function instant(raw: string): string {
  return asUsageError(() => checkExpiry(raw, Date.now())!)
}

/** `set-expiry --expires`: an instant, or "never". */
export const expiry = (raw: string) => (raw === 'never' ? raw : instant(raw))

function asUsageError<T>(check: () => T): T {
  try {
    return check()
  } catch (error) {
    if (error instanceof KeyInputError)
      throw new InvalidArgumentError(`${error.message[0]!.toUpperCase()}${error.message.slice(1)}.`)
    throw error
  }
}

/** `--scopes pets:read,orders:read`: known scopes, at least one (an unknown one is named, with the valid ones). */
export function scopeList(raw: string): Scope[] {
  return asUsageError(() => checkScopes(splitScopes(raw)))
}
