// What the accounts' events carry (issue 36): an account as its owner sees it, and a key as the portal lists it,
// never a secret. Recorded by webhooks/record-event.ts in the transaction of the change.
import type { Account, ApiKeyInfo } from './account-rows.js'

export const accountData = (a: Account) => ({
  id: a.id,
  name: a.name,
  plan: a.plan,
  quota: a.quota,
  suspendedAt: a.suspendedAt,
  suspensionReason: a.suspensionReason,
})

export const keyData = (k: ApiKeyInfo) => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  environment: k.environment,
  scopes: k.scopes,
  state: k.state,
  createdAt: k.createdAt,
  expiresAt: k.expiresAt,
  revokedAt: k.revokedAt,
  replacedBy: k.replacedBy,
  graceEndsAt: k.graceEndsAt,
})
