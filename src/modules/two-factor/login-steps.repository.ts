// A log-in half done (portal_login_steps): the password was right, the second factor is awaited. The browser holds
// a random id in a cookie; the row holds its hash, the user, and the password's change time, so a reset or a
// change of password in between voids the step. It lives STEP_TTL_MS and is taken once.
import type { Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import type { Database } from '../../db/schema.js'
import { randomSecret, secretHash } from '../../kernel/secrets.js'

export const STEP_TTL_MS = 10 * 60 * 1000

export function loginSteps({ db, clock }: { db: Kysely<Database>; clock: Clock }) {
  return {
    async start(user: { id: string; password_changed_at: bigint | number | null }): Promise<string> {
      const id = randomSecret()
      const now = clock.now()
      await db.deleteFrom('portal_login_steps').where('expires_at', '<=', now).execute()
      await db
        .insertInto('portal_login_steps')
        .values({
          id_hash: secretHash(id),
          user_id: user.id,
          password_changed_at: user.password_changed_at,
          expires_at: now + STEP_TTL_MS,
        })
        .execute()
      return id
    },

    /**
     * The step's user if the step is live, with the password's change time it was started at: the caller compares it
     * with the user's own (a change since voids the step).
     */
    async userOf(id: string | undefined): Promise<{ userId: string; passwordChangedAt: string } | undefined> {
      if (id === undefined || id.length > 64) return undefined
      const row = await db
        .selectFrom('portal_login_steps')
        .select(['user_id', 'expires_at', 'password_changed_at'])
        .where('id_hash', '=', secretHash(id))
        .executeTakeFirst()
      if (!row || Number(row.expires_at) <= clock.now()) return undefined
      return { userId: row.user_id, passwordChangedAt: String(row.password_changed_at ?? '') }
    },

    /** Ends the step (signed in, or given up): true for the one request that ended it. */
    async finish(id: string): Promise<boolean> {
      const result = await db.deleteFrom('portal_login_steps').where('id_hash', '=', secretHash(id)).executeTakeFirst()
      return Number(result.numDeletedRows) === 1
    },
  }
}
