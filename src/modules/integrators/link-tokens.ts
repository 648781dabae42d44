// The single-use tokens of mailed links (verify an address, reset a password, confirm a new address), stored only
// as hashes in portal_tokens. Issued here for the portal and the console alike (an operator's `Resend
// verification` mails the same link as the portal's sign-up); they are used up where the link leads (the portal).
import type { Kysely } from 'kysely'
import { dialectOf } from '../../db/database.js'
import type { Engine } from '../../db/engine.js'
import type { Database } from '../../db/schema.js'
import { randomSecret, secretHash } from '../../kernel/secrets.js'

export type LinkPurpose = 'verify' | 'reset' | 'email'

/** The shortest time between two links of one purpose to one user: nobody can have a mailbox flooded with links. */
export const LINK_MIN_INTERVAL_MS = 60_000

/**
 * A fresh token (earlier ones of the same purpose stop working), or undefined when one was issued less than
 * `minIntervalMs` before `at` (that one, still fresh, stays the link).
 */
export async function issueLinkToken(
  engine: Engine,
  input: {
    userId: string
    purpose: LinkPurpose
    ttlMs: number
    at: number
    minIntervalMs?: number
    /** The address a change-of-address link moves its user to (purpose `email` only). */
    newEmail?: string
  },
): Promise<string | undefined> {
  const { userId, purpose, at } = input
  const token = randomSecret()
  const issued = await engine.transaction(async (trx) => {
    // Two requests at once must not both find no recent link: on PostgreSQL the user's row is locked first (SQLite
    // runs one write transaction at a time).
    if (dialectOf(trx) === 'postgres')
      await trx.selectFrom('portal_users').select('id').where('id', '=', userId).forUpdate().execute()
    const recent = await trx
      .selectFrom('portal_tokens')
      .select('token_hash')
      .where('user_id', '=', userId)
      .where('purpose', '=', purpose)
      .where('created_at', '>', at - (input.minIntervalMs ?? LINK_MIN_INTERVAL_MS))
      .executeTakeFirst()
    if (recent) return false
    await trx.deleteFrom('portal_tokens').where('user_id', '=', userId).where('purpose', '=', purpose).execute()
    await trx
      .insertInto('portal_tokens')
      .values({
        token_hash: secretHash(token),
        user_id: userId,
        purpose,
        created_at: at,
        expires_at: at + input.ttlMs,
        used_at: null,
        ...(input.newEmail === undefined ? {} : { new_email: input.newEmail }),
      })
      .execute()
    return true
  })
  return issued ? token : undefined
}

/**
 * Voids every pending mailed link of the user, of every purpose: run inside the transaction of any change of who
 * controls the account (a sign-up replacing an unverified one, a verification, a reset, a password change), so no
 * link mailed before it outlives it. `keepVerifyIssuedAfter`: a verify link issued after this instant stays. Only a
 * sign-up that replaces an unverified account keeps one: verify links go to the account's own address, which an
 * unverified account cannot change, and the one-link-a-minute rule mails no second link within that minute.
 */
export async function voidLinkTokens(
  trx: Kysely<Database>,
  userId: string,
  keepVerifyIssuedAfter?: number,
): Promise<void> {
  let voided = trx.deleteFrom('portal_tokens').where('user_id', '=', userId)
  if (keepVerifyIssuedAfter !== undefined) {
    voided = voided.where((eb) => eb.or([eb('purpose', '!=', 'verify'), eb('created_at', '<=', keepVerifyIssuedAfter)]))
  }
  await voided.execute()
}
