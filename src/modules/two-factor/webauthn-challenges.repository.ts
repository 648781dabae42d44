// WebAuthn challenges (portal_webauthn_challenges), in the database so a ceremony begun on one instance ends on
// another. Each is for one browser (the hash of its session or pre-session binding), one purpose and, when the
// person is known, one user; it is taken once (deleted as it is read), and dies after CHALLENGE_TTL_MS.
import type { Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import type { Database } from '../../db/schema.js'
import { secretHash } from '../../kernel/secrets.js'
import { CHALLENGE_TTL_MS } from './webauthn.js'

export type ChallengePurpose = 'register' | 'sign_in' | 'confirm'

export function webauthnChallenges({ db, clock }: { db: Kysely<Database>; clock: Clock }) {
  return {
    async store(challenge: string, binding: string, purpose: ChallengePurpose, userId: string | null): Promise<void> {
      const now = clock.now()
      await db.deleteFrom('portal_webauthn_challenges').where('expires_at', '<=', now).execute()
      await db
        .insertInto('portal_webauthn_challenges')
        .values({
          challenge,
          binding_hash: secretHash(binding),
          purpose,
          user_id: userId,
          expires_at: now + CHALLENGE_TTL_MS,
        })
        .execute()
    },

    /**
     * Takes the challenge if this browser was given it for this purpose and it is still live: the user it was for
     * (null: anyone's passkey), or undefined (unknown, another browser's, used, expired).
     */
    async take(
      challenge: string,
      binding: string | undefined,
      purpose: ChallengePurpose,
    ): Promise<{ userId: string | null } | undefined> {
      if (binding === undefined) return undefined
      const row = await db
        .deleteFrom('portal_webauthn_challenges')
        .where('challenge', '=', challenge)
        .where('binding_hash', '=', secretHash(binding))
        .where('purpose', '=', purpose)
        .returning(['user_id', 'expires_at'])
        .executeTakeFirst()
      if (!row || Number(row.expires_at) <= clock.now()) return undefined
      return { userId: row.user_id }
    },
  }
}
