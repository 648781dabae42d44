// Lifting a key's temporary ban (the CLI through the admin endpoint, the console): the ban lives in the rate-limit
// store, not in a table, so its audit entry is recorded on its own, and only when there was a ban to lift.
import type { AuditActor } from '../audit/audit-event.js'
import type { AuditRepository } from '../audit/audit.repository.js'
import type { RateLimitStore } from './rate-limit.store.js'
import { keySubject } from './rate-limiter.js'

export async function liftBan(input: {
  store: RateLimitStore
  audit: AuditRepository
  keyId: string
  accountId: string
  actor: AuditActor
}): Promise<{ wasBanned: boolean }> {
  const wasBanned = await input.store.unban(keySubject(input.keyId))
  if (wasBanned)
    await input.audit.record(input.actor, {
      action: 'ban.lifted',
      accountId: input.accountId,
      target: { kind: 'key', id: input.keyId },
    })
  return { wasBanned }
}
