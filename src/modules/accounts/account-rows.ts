// What the accounts service returns (accounts and keys as callers see them) and how rows become it. Shared by the
// reads (accounts.repository.ts) and the changes (account-changes.ts).
import type { AccountRow, ApiKeyRow } from '../../db/schema.js'
import type { KeyEnvironment } from './api-keys.js'
import { decodeScopes, type Scope } from './key-scopes.js'
import { keyState, type KeyState } from './key-state.js'
import { quotaOf, type Plan, type Quota } from './plans.js'

export interface Account {
  id: string
  name: string
  plan: Plan
  perMinute: number | null
  perDay: number | null
  /** The quota in force (the plan's, or the enterprise figures). */
  quota: Quota
  createdAt: string
  /** Set while an operator has the account suspended: its keys are answered 403 account_suspended. */
  suspendedAt: string | null
  /** Why it was suspended (shown to its owner in the portal). */
  suspensionReason: string | null
  /** Set once the account was deleted. */
  deletedAt: string | null
}

export interface ApiKeyInfo {
  id: string
  accountId: string
  name: string | null
  prefix: string
  environment: KeyEnvironment
  createdAt: string
  /** The start of the last minute the key was used in (minute precision). */
  lastUsedAt: string | null
  expiresAt: string | null
  revokedAt: string | null
  /** Set once the key was rolled: when, the key that replaced it, and when its grace period ends. */
  rolledAt: string | null
  replacedBy: string | null
  graceEndsAt: string | null
  /** What the key may do (every scope unless it was made or narrowed to fewer). */
  scopes: Scope[]
  /** Computed with the clock when read. */
  state: KeyState
}

export class NotFoundError extends Error {}
/** The key cannot do that in its state (rolling a revoked, expired or already rolled key). */
export class KeyStateError extends Error {}
/** The account cannot do that in its state (suspending a deleted account). */
export class AccountStateError extends Error {}
/** A value given for an account change is not acceptable (a suspension without a reason); fit to show as is. */
export class AccountInputError extends Error {}

/** The name a deleted account keeps instead of the one it had (often its owner's address). */
export const DELETED_ACCOUNT_NAME = 'deleted account'

/** An account row's plan figures (stored as int8: bigint on PostgreSQL) and the quota they give. */
export function planOf(row: Pick<AccountRow, 'plan' | 'per_minute' | 'per_day'>) {
  const perMinute = row.per_minute === null ? null : Number(row.per_minute)
  const perDay = row.per_day === null ? null : Number(row.per_day)
  return { perMinute, perDay, quota: quotaOf({ plan: row.plan, perMinute, perDay }) }
}

export function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan as Plan,
    ...planOf(row),
    createdAt: row.created_at,
    suspendedAt: row.suspended_at,
    suspensionReason: row.suspension_reason,
    deletedAt: row.deleted_at,
  }
}

export function toKeyInfo(row: ApiKeyRow, now: number): ApiKeyInfo {
  const lifetime = { revokedAt: row.revoked_at, expiresAt: row.expires_at, graceEndsAt: row.grace_ends_at }
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    prefix: row.key_prefix,
    environment: row.environment as KeyEnvironment,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    rolledAt: row.rolled_at,
    replacedBy: row.replaced_by,
    graceEndsAt: row.grace_ends_at,
    scopes: decodeScopes(row.scopes),
    state: keyState(lifetime, now),
  }
}
