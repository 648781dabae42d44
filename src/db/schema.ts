// Row types of every table, as Kysely sees them. Integers that can exceed 2^53 are bigint end to end.
import type { Generated, Selectable } from 'kysely'

export interface AccountsTable {
  id: string
  name: string
  plan: string
  per_minute: number | null
  per_day: number | null
  created_at: string
  /** Set when the account was deleted: its keys are refused, its data purged, its name emptied. */
  deleted_at: string | null
  /** Set while an operator has suspended the account: its keys are answered 403 account_suspended. */
  suspended_at: string | null
  /** Why (shown to its owner in the portal, and in the audit log). */
  suspension_reason: string | null
}

export interface ApiKeysTable {
  id: string
  account_id: string
  /** SHA-256 (hex) of the whole secret; the secret itself is never stored. */
  key_hash: string
  /** The first characters of the secret (e.g. `ps_test_AbCd`), enough to recognise a key in a list. */
  key_prefix: string
  environment: string
  created_at: string
  revoked_at: string | null
  /** Chosen by its owner to tell keys apart (e.g. "CI"); null for unnamed keys. */
  name: string | null
  /** The start of the last minute the key was used in (written at most once a minute). */
  last_used_at: string | null
  /** Refused from this instant on; null: never expires. */
  expires_at: string | null
  /** Set when the key was rolled: when, its replacement, and the end of its grace period. */
  rolled_at: string | null
  replaced_by: string | null
  grace_ends_at: string | null
  /** What the key may do: its scopes, space-separated (accounts/key-scopes.ts); every scope unless narrowed. */
  scopes: string
}

export interface PetsTable {
  id: Generated<bigint>
  account_id: string
  name: string
  category_id: bigint
  status: string | null
  created_at: string
}

export interface SettingsTable {
  name: string
  value: string
}

export interface IdempotencyKeysTable {
  account_id: string
  idempotency_key: string
  /** SHA-256 of the canonical JSON of the request body. */
  fingerprint: string
  state: 'in_progress' | 'done'
  response_status: number | null
  response_body: string | null
  response_location: string | null
  created_at: string
  expires_at: string
}

export interface MessagesTable {
  seq: Generated<bigint>
  id: string
  account_id: string
  message: string
  status: 'queued' | 'delivered' | 'failed'
  attempts: Generated<bigint>
  next_attempt_at: bigint
  locked_until: bigint | null
  last_error: string | null
  created_at: string
  delivered_at: string | null
}

export interface OrdersTable {
  id: Generated<bigint>
  account_id: string
  pet_id: bigint
  quantity: number
  ship_date: string | null
  status: string
  /** 0 or 1. */
  complete: number
  created_at: string
  cancelled_at: string | null
}

export interface PortalUsersTable {
  id: string
  account_id: string
  email: string
  /** The address lower-cased (unique). */
  email_key: string
  /** `scrypt$N$r$p$salt$hash`, see portal/passwords.ts. */
  password_hash: string
  verified_at: string | null
  created_at: string
  /** Last password change (epoch ms): a reset lifts the per-address log-in limit for this user. */
  password_changed_at: bigint | number | null
}

export interface PortalTokensTable {
  /** SHA-256 (hex) of the emailed token. */
  token_hash: string
  user_id: string
  purpose: 'verify' | 'reset' | 'email'
  /** Epoch milliseconds. */
  created_at: bigint | number
  expires_at: bigint | number
  used_at: bigint | number | null
  /** The address a change-of-email token moves the user to. */
  new_email: string | null
}

export interface PortalSessionsTable {
  /** SHA-256 (hex) of the cookie's session id. */
  id_hash: string
  user_id: string
  created_at: bigint | number
  last_seen_at: bigint | number
  /** Absolute expiry, epoch milliseconds. */
  expires_at: bigint | number
  /** Browser and client address at log-in (shown on the account page). */
  user_agent: string | null
  address: string | null
  /** When the session last confirmed it is its owner (sudo mode), epoch ms. */
  sudo_at?: bigint | number | null
  /** The account the session works in (one of its user's memberships); null until chosen. */
  account_id?: string | null
}

export interface PortalTwoFactorTable {
  user_id: string
  /** The authenticator app's secret, sealed (kernel/secret-box.ts) for this user id. */
  totp_secret: string | null
  /** Null while the enrolment awaits its first code. */
  totp_confirmed_at: bigint | number | null
  totp_last_step: bigint | number | null
  locked_until: bigint | number | null
}

export interface PortalPasskeysTable {
  /** The credential id, base64url. */
  id: string
  user_id: string
  name: string
  /** The COSE public key, base64url. */
  public_key: string
  counter: bigint | number
  /** JSON array of the authenticator's transports, as the browser gave them. */
  transports: string | null
  created_at: bigint | number
  last_used_at: bigint | number | null
}

export interface PortalRecoveryCodesTable {
  code_hash: string
  user_id: string
  used_at: bigint | number | null
}

export interface PortalCodeFailuresTable {
  id: string
  user_id: string
  address: string
  at: bigint | number
}

export interface PortalLoginStepsTable {
  id_hash: string
  user_id: string
  password_changed_at: bigint | number | null
  expires_at: bigint | number
}

export interface PortalWebauthnChallengesTable {
  challenge: string
  binding_hash: string
  purpose: string
  user_id: string | null
  expires_at: bigint | number
}

export type MemberRole = 'viewer' | 'developer' | 'admin' | 'owner'

export interface AccountMembersTable {
  account_id: string
  user_id: string
  role: MemberRole
  created_at: bigint | number
}

export interface AccountInvitationsTable {
  id: string
  account_id: string
  email: string
  email_key: string
  role: MemberRole
  token_hash: string
  /** The inviting member's portal user id. */
  invited_by: string
  created_at: bigint | number
  expires_at: bigint | number
  accepted_at: bigint | number | null
  revoked_at: bigint | number | null
}

export interface AccountTeamSettingsTable {
  account_id: string
  /** 1: members must have a second factor to do anything but set one up. */
  require_two_factor: number
}

export interface PortalDevicesTable {
  user_id: string
  /** SHA-256 (hex) of the browser's device cookie. */
  device_hash: string
  first_seen_at: string
  last_seen_at: string
}

export interface PortalLoginFailuresTable {
  seq: Generated<bigint>
  email_key: string
  address: string
  at: bigint | number
}

/** Requests of one key in one minute (`usage_minutes`) or one UTC day (`usage_days`), added to by every instance. */
export interface UsageMinutesTable {
  key_id: string
  minute: string
  account_id: string
  admitted: bigint
  refused: bigint
  client_errors: bigint
  server_errors: bigint
}

export interface UsageDaysTable {
  key_id: string
  day: string
  account_id: string
  admitted: bigint
  refused: bigint
  client_errors: bigint
  server_errors: bigint
}

/** One entry of the append-only audit log (see src/audit/). */
export interface AuditEventsTable {
  seq: Generated<bigint>
  at: string
  actor_kind: 'account' | 'operator' | 'cli' | 'system'
  actor_id: string | null
  actor_email: string | null
  actor_address: string | null
  action: string
  account_id: string | null
  target_kind: string | null
  target_id: string | null
  /** JSON text. */
  changes: string | null
}

export interface OperatorsTable {
  id: string
  email: string
  email_key: string
  role: 'admin' | 'support'
  password_hash: string | null
  totp_secret: string | null
  totp_last_step: bigint | number | null
  created_at: string
  disabled_at: string | null
  password_changed_at: bigint | number | null
}

export interface OperatorTokensTable {
  token_hash: string
  operator_id: string
  created_at: bigint | number
  expires_at: bigint | number
  used_at: bigint | number | null
  /** The TOTP secret made for the browser that sent the new password, until a code from it confirms it. */
  pending_secret: string | null
  /** The hash of that browser's setup cookie, and of the password it sent (migration 0013). */
  pending_browser: string | null
  pending_password_hash: string | null
}

export interface OperatorRecoveryCodesTable {
  code_hash: string
  operator_id: string
  used_at: bigint | number | null
}

export interface OperatorSessionsTable {
  id_hash: string
  operator_id: string
  created_at: bigint | number
  last_seen_at: bigint | number
  expires_at: bigint | number
  user_agent: string | null
  address: string | null
}

export interface PlanRequestsTable {
  id: string
  account_id: string
  plan: string
  note: string
  state: 'pending' | 'approved' | 'declined'
  created_at: string
  decided_at: string | null
  decided_by: string | null
  reason: string | null
}

export interface Database {
  accounts: AccountsTable
  api_keys: ApiKeysTable
  pets: PetsTable
  settings: SettingsTable
  idempotency_keys: IdempotencyKeysTable
  messages: MessagesTable
  orders: OrdersTable
  usage_minutes: UsageMinutesTable
  usage_days: UsageDaysTable
  portal_users: PortalUsersTable
  portal_tokens: PortalTokensTable
  portal_sessions: PortalSessionsTable
  portal_login_failures: PortalLoginFailuresTable
  portal_devices: PortalDevicesTable
  portal_two_factor: PortalTwoFactorTable
  account_members: AccountMembersTable
  account_invitations: AccountInvitationsTable
  account_team_settings: AccountTeamSettingsTable
  portal_passkeys: PortalPasskeysTable
  portal_recovery_codes: PortalRecoveryCodesTable
  portal_code_failures: PortalCodeFailuresTable
  portal_login_steps: PortalLoginStepsTable
  portal_webauthn_challenges: PortalWebauthnChallengesTable
  audit_events: AuditEventsTable
  operators: OperatorsTable
  operator_tokens: OperatorTokensTable
  operator_recovery_codes: OperatorRecoveryCodesTable
  operator_sessions: OperatorSessionsTable
  operator_login_failures: PortalLoginFailuresTable
  plan_requests: PlanRequestsTable
  rate_limit_counters: RateLimitCountersTable
  rate_limit_bans: RateLimitBansTable
  webhook_endpoints: WebhookEndpointsTable
  webhook_events: WebhookEventsTable
  webhook_deliveries: WebhookDeliveriesTable
  webhook_attempts: WebhookAttemptsTable
}

/** An account's webhook endpoint (0015_webhooks); `secret` and `previous_secret` are sealed (kernel/secret-box.ts). */
export interface WebhookEndpointsTable {
  id: string
  account_id: string
  url: string
  description: string
  event_types: string
  enabled: number
  disabled_reason: string | null
  secret: string
  previous_secret: string | null
  previous_secret_until: bigint | null
  failing_since: bigint | null
  created_at: string
  updated_at: string
  /** Where the endpoint's first attempts have read the account's events to (0021_event-streams). */
  stream_seq: Generated<bigint>
  /** PostgreSQL: the transaction of that event (events are read in (tx, seq) order there); 0 on SQLite. */
  stream_tx: Generated<bigint>
  /** Epoch ms until which an instance reads and delivers the endpoint's stream. */
  stream_locked_until: bigint | null
}

export interface WebhookEventsTable {
  seq: Generated<bigint>
  id: string
  account_id: string
  type: string
  data: string
  created_at: string
  /** PostgreSQL: the recording transaction's id (a default); null on SQLite and for events before 0021. */
  tx: Generated<bigint | null>
}

export interface WebhookDeliveriesTable {
  seq: Generated<bigint>
  event_seq: bigint
  endpoint_id: string
  account_id: string
  status: 'pending' | 'delivered' | 'failed'
  attempts: Generated<number>
  next_attempt_at: bigint
  locked_until: bigint | null
  created_at: string
  settled_at: string | null
}

export interface WebhookAttemptsTable {
  seq: Generated<bigint>
  delivery_seq: bigint
  account_id: string
  endpoint_id: string
  event_id: string
  event_type: string
  attempted_at: string
  status_code: number | null
  error_class: string | null
  error: string | null
  duration_ms: number
  response_excerpt: string | null
}

/** A rate-limit window's or a ban's refusal count, kept when there is no Redis (0014_rate_limit_state). */
export interface RateLimitCountersTable {
  subject: string
  kind: 'window' | 'refusals'
  name: string
  seconds: number | bigint
  window_start: number | bigint
  window_end: number | bigint
  count: number | bigint
}

export interface RateLimitBansTable {
  subject: string
  until: number | bigint
}

export type AccountRow = Selectable<AccountsTable>
export type ApiKeyRow = Selectable<ApiKeysTable>
export type PetRow = Selectable<PetsTable>
