// Wrong second-factor codes, counted per user and per client address (portal_code_failures). An attempt is recorded
// *before* its code is checked, so concurrent guesses all count; a right code takes its record back. Beyond
// CODES_ALLOWED in CODE_WINDOW_MS for the user or the address, a code is not even looked at. The user's
// CODES_ALLOWED-th wrong code locks their second-factor step for LOCK_MS (portal_two_factor.locked_until): the
// caller mails the owner once, when `wrong` says the lock began. Only attempts whose password was right (or that
// come with a passkey-less recovery step) reach here, so a stranger who merely knows the address cannot lock anyone.
import type { Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import type { Database } from '../../db/schema.js'
import { randomSecret } from '../../kernel/secrets.js'

const CODES_ALLOWED = 10
const CODE_WINDOW_MS = 15 * 60 * 1000
const LOCK_MS = 15 * 60 * 1000

type CodeAttempt =
  | {
      allowed: true
      /** The code was right: this attempt does not count. */
      succeeded: () => Promise<void>
      /** The code was wrong: it counts; `lockedUntil` when this one locked the user's step. */
      failed: () => Promise<{ lockedUntil?: number }>
    }
  | { allowed: false; reason: 'locked' | 'address'; until: number }

export function codeThrottle({ db, clock }: { db: Kysely<Database>; clock: Clock }) {
  const count = async (column: 'user_id' | 'address', value: string, since: number) =>
    Number(
      (
        await db
          .selectFrom('portal_code_failures')
          .select((eb) => eb.fn.countAll<number | bigint | string>().as('n'))
          .where(column, '=', value)
          .where('at', '>', since)
          .executeTakeFirstOrThrow()
      ).n,
    )

  return {
    /** Whether the user's second-factor step is locked now, and until when. */
    async lockedUntil(userId: string): Promise<number | undefined> {
      const row = await db
        .selectFrom('portal_two_factor')
        .select('locked_until')
        .where('user_id', '=', userId)
        .executeTakeFirst()
      const until = row?.locked_until == null ? undefined : Number(row.locked_until)
      return until !== undefined && until > clock.now() ? until : undefined
    },

    async attempt(userId: string, address: string): Promise<CodeAttempt> {
      const now = clock.now()
      const locked = await this.lockedUntil(userId)
      if (locked !== undefined) return { allowed: false, reason: 'locked', until: locked }
      const id = randomSecret()
      const since = now - CODE_WINDOW_MS
      await db.deleteFrom('portal_code_failures').where('user_id', '=', userId).where('at', '<=', since).execute()
      await db.insertInto('portal_code_failures').values({ id, user_id: userId, address, at: now }).execute()
      const forget = async () => void (await db.deleteFrom('portal_code_failures').where('id', '=', id).execute())
      const [byUser, byAddress] = [await count('user_id', userId, since), await count('address', address, since)]
      if (byUser > CODES_ALLOWED || byAddress > CODES_ALLOWED) {
        await forget()
        return { allowed: false, reason: byUser > CODES_ALLOWED ? 'locked' : 'address', until: now + CODE_WINDOW_MS }
      }
      return {
        allowed: true,
        succeeded: forget,
        failed: async () => {
          if ((await count('user_id', userId, since)) < CODES_ALLOWED) return {}
          const until = now + LOCK_MS
          // One lock (and one mail) however many wrong codes race to it: the update that finds no live lock wins.
          await db
            .insertInto('portal_two_factor')
            .values({
              user_id: userId,
              totp_secret: null,
              totp_confirmed_at: null,
              totp_last_step: null,
              locked_until: null,
            })
            .onConflict((oc) => oc.column('user_id').doNothing())
            .execute()
          const result = await db
            .updateTable('portal_two_factor')
            .set({ locked_until: until })
            .where('user_id', '=', userId)
            .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
            .executeTakeFirst()
          return Number(result.numUpdatedRows) > 0 ? { lockedUntil: until } : {}
        },
      }
    },
  }
}
