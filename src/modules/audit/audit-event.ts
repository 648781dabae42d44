// What an audit entry says: who did it (the actor), what they did (one of a closed list of actions), to what, and
// what changed. A shared type of its own: the account, portal, operator and console modules all write entries.

/**
 * Who made a change. `address` is the client address of the request that made it (none for the CLI). An operator
 * with no id: a console log-in with an email no operator has (the email as typed, cut short).
 */
export type AuditActor =
  | { kind: 'account'; accountId: string; email: string | null; address?: string }
  | { kind: 'operator'; operatorId: string | null; email: string; address?: string }
  | { kind: 'cli'; user: string }
  /** The service itself (the retention job, a sweeper). */
  | { kind: 'system' }

export const AUDIT_ACTIONS = [
  'account.created',
  'account.verified',
  'account.email_changed',
  'account.password_changed',
  'account.plan_changed',
  'account.suspended',
  'account.reactivated',
  'account.deleted',
  'account.verification_resent',
  'account.invitation_sent',
  'account.totp_added',
  'account.totp_removed',
  'account.passkey_added',
  'account.passkey_removed',
  'account.passkey_clone_refused',
  'account.recovery_codes_regenerated',
  'account.recovery_code_used',
  'account.second_factor_locked',
  'account.second_factors_reset',
  'account.two_factor_required',
  'member.invited',
  'member.invitation_revoked',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'member.left',
  'key.created',
  'key.rolled',
  'key.revoked',
  'key.expiry_changed',
  'key.scopes_restricted',
  'ban.lifted',
  'operator.created',
  'operator.setup_completed',
  'operator.disabled',
  'operator.role_changed',
  'operator.login',
  'operator.login_failed',
  'plan_request.created',
  'plan_request.approved',
  'plan_request.declined',
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.secret_rotated',
  'webhook_endpoint.disabled',
] as const

export type AuditAction = (typeof AUDIT_ACTIONS)[number]

export interface AuditEntry {
  action: AuditAction
  /** The account the change concerns, if any (what account pages and /portal/activity filter by). */
  accountId?: string | null
  target?: { kind: 'account' | 'key' | 'operator' | 'plan_request' | 'webhook_endpoint'; id: string }
  /** Before and after, and other details. Never a secret, a password, a token or a TOTP secret. */
  changes?: Record<string, unknown>
}

/** An entry as read back, newest first. */
export interface AuditEvent {
  seq: string
  at: string
  actor: { kind: AuditActor['kind']; id: string | null; email: string | null; address: string | null }
  action: AuditAction
  accountId: string | null
  target: { kind: string; id: string } | null
  changes: Record<string, unknown> | null
}
