// What opening a mailed verify or reset link does, each in one transaction: the token is used up (one statement,
// so two clicks cannot both succeed), the change is made, and every other pending link of the user is voided
// (voidLinkTokens): whoever opened it controls the mailbox, and a link mailed before (a change of address asked for
// by whoever signed up in someone else's name, say) must not outlive that.
import type { Kysely } from 'kysely'
import { voidLinkTokens, type LinkPurpose } from './link-tokens.js'
import { writeAudit } from '../audit/audit.repository.js'
import type { Clock } from '../../kernel/clock.js'
import type { Engine } from '../../db/engine.js'
import type { Database } from '../../db/schema.js'
import { secretHash } from '../../kernel/secrets.js'
import { integratorActor, passwordChanged } from './actor.js'

type Trx = Kysely<Database>

/** Uses a token up; its user's id, or undefined when it is unknown, used, expired or of another purpose. */
async function useToken(trx: Trx, token: string, purpose: LinkPurpose, at: number): Promise<string | undefined> {
  const row = await trx
    .updateTable('portal_tokens')
    .set({ used_at: at })
    .where('token_hash', '=', secretHash(token))
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', at)
    .returning('user_id')
    .executeTakeFirst()
  return row?.user_id
}

/** Marks the address verified, once: an account.verified entry the first time. */
async function markVerified(trx: Trx, userId: string, at: number, address: string | undefined): Promise<void> {
  const updated = await trx
    .updateTable('portal_users')
    .set({ verified_at: new Date(at).toISOString() })
    .where('id', '=', userId)
    .where('verified_at', 'is', null)
    .executeTakeFirst()
  if (updated.numUpdatedRows !== 1n) return
  const user = await trx
    .selectFrom('portal_users')
    .select(['account_id', 'email'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow()
  await writeAudit(trx, at, integratorActor(user, address), {
    action: 'account.verified',
    accountId: user.account_id,
    target: { kind: 'account', id: user.account_id },
    changes: { email: user.email },
  })
}

export function linkUses({ engine, clock }: { engine: Engine; clock: Clock }) {
  return {
    /** A user made from an invitation's link: the link, mailed to the address, verified it. */
    verifiedByInvitation: (userId: string, address?: string): Promise<void> =>
      engine.transaction((trx) => markVerified(trx, userId, clock.now(), address)),

    /** A verification link: the address is verified; the user's id, or undefined when the link does not work. */
    verifyAddress: (token: string, address?: string): Promise<string | undefined> =>
      engine.transaction(async (trx) => {
        const at = clock.now()
        const userId = await useToken(trx, token, 'verify', at)
        if (!userId) return undefined
        await markVerified(trx, userId, at, address)
        await voidLinkTokens(trx, userId)
        return userId
      }),

    /**
     * A reset link: the new password, every session of the user ended (a thief's included), every browser forgotten
     * (a thief's logs in as a new one again, and is mailed) and the address verified (the link proved it); the
     * user's id, or undefined when the link does not work.
     */
    resetPassword: (token: string, passwordHash: string, address?: string): Promise<string | undefined> =>
      engine.transaction(async (trx) => {
        const at = clock.now()
        const userId = await useToken(trx, token, 'reset', at)
        if (!userId) return undefined
        await trx
          .updateTable('portal_users')
          .set({ password_hash: passwordHash, password_changed_at: at })
          .where('id', '=', userId)
          .execute()
        await trx.deleteFrom('portal_sessions').where('user_id', '=', userId).execute()
        await trx.deleteFrom('portal_devices').where('user_id', '=', userId).execute()
        await passwordChanged(trx, at, userId, address, 'reset')
        await markVerified(trx, userId, at, address)
        await voidLinkTokens(trx, userId)
        return userId
      }),
  }
}
