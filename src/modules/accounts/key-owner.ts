// Who a presented key belongs to, as the authenticator needs it (a type of its own: the repository that finds it
// and the cache that keeps it both name it).
import type { KeyEnvironment } from './api-keys.js'
import type { KeyLifetime } from './key-state.js'
import type { Scope } from './key-scopes.js'
import type { Quota } from './plans.js'

/** The result of looking a presented secret up: enough to authenticate and, later, to rate-limit. */
export interface KeyOwner {
  keyId: string
  accountId: string
  environment: KeyEnvironment
  /** What decides whether the key is still usable (see `refusalReason`). */
  lifetime: KeyLifetime
  /** What the key may do; cached with the rest, so a narrowing reaches every instance with its announcement. */
  scopes: Scope[]
  /** Set when the key's account was deleted: every key of it is refused (null or absent: not deleted). */
  accountDeletedAt?: string | null
  /** Set while the key's account is suspended: every key of it is answered 403 account_suspended. */
  accountSuspendedAt?: string | null
  /** The account's quota as of now: a plan change applies from the next request on. */
  quota: Quota
  /** The account's plan, as stored. */
  plan?: string
}
