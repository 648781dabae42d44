// Who a change made in the portal is recorded as in the audit log: the integrator, by account and address as of
// the change, with the client address of the request; and the entry the portal's password changes share.
import type { Kysely } from 'kysely'
import type { AuditActor } from '../audit/audit-event.js'
import { writeAudit } from '../audit/audit.repository.js'
import type { Database } from '../../db/schema.js'

export function integratorActor(user: { account_id: string; email: string }, address: string | undefined): AuditActor {
  return { kind: 'account', accountId: user.account_id, email: user.email, address }
}

/** The audit entry of a password change (never the password or its hash): how it was changed. */
export async function passwordChanged(
  trx: Kysely<Database>,
  at: number,
  userId: string,
  address: string | undefined,
  via: 'reset' | 'settings' | 'sign_up',
): Promise<void> {
  const user = await trx
    .selectFrom('portal_users')
    .select(['account_id', 'email'])
    .where('id', '=', userId)
    .executeTakeFirst()
  if (!user) return
  await writeAudit(trx, at, integratorActor(user, address), {
    action: 'account.password_changed',
    accountId: user.account_id,
    target: { kind: 'account', id: user.account_id },
    changes: { via },
  })
}
