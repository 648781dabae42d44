// How a key reads to a person (the portal's table, the CLI's plain listing): a rolled key that still works is
// `rolled`, not `active`, and its end is the real one. The stored state (`keyState`) stays what the
// authenticator decides with; this only names it for reading.
import type { ApiKeyInfo } from './accounts.repository.js'

type ShownState = 'active' | 'rolled' | 'suspended' | 'expired' | 'revoked'

type KeyTimes = Pick<ApiKeyInfo, 'state' | 'replacedBy' | 'expiresAt' | 'graceEndsAt'>

/**
 * `rolled`: the old secret of a roll, still working during its grace period. `suspended`: a key that would work but
 * whose account is suspended (every request with it is refused until the account is reactivated).
 */
export function shownState(key: KeyTimes, account: { suspended: boolean } = { suspended: false }): ShownState {
  if (key.state === 'active' && account.suspended) return 'suspended'
  return key.state === 'active' && key.replacedBy !== null ? 'rolled' : key.state
}

/** When the key stops working, whatever the reason: the earlier of its expiry and the end of a roll's grace. */
export function endsAt(key: KeyTimes): string | null {
  if (key.graceEndsAt === null) return key.expiresAt
  if (key.expiresAt === null) return key.graceEndsAt
  return Date.parse(key.graceEndsAt) <= Date.parse(key.expiresAt) ? key.graceEndsAt : key.expiresAt
}
