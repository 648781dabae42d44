// An operator's setup through its single-use link. Opening the link shows nothing secret (a chat tool's link preview
// opens it too). The browser that sends the new password gets a TOTP secret made for it, kept with the token beside
// the password's hash and the hash of a random value only that browser holds (its setup cookie). Another browser
// sending a password replaces all three: an earlier secret, never confirmed, is void. Only the browser holding the
// cookie, with a current code of its secret, completes the setup; only then is the secret the operator's.
import type { Kysely } from 'kysely'
import { writeAudit } from '../audit/audit.repository.js'
import type { Clock } from '../../kernel/clock.js'
import type { Engine } from '../../db/engine.js'
import type { Database } from '../../db/schema.js'
import { secretHash } from '../../kernel/secrets.js'
import { operatorOf, type Operator } from './operator.js'
import { newRecoveryCodes, recoveryCodeHash } from '../sign-in/recovery-codes.js'
import { newTotpSecret } from '../sign-in/totp.js'

export function operatorSetup({ db, clock, engine }: { db: Kysely<Database>; clock: Clock; engine: Engine }) {
  /** The token row of a usable link (unused, unexpired, its operator enabled), with its operator. */
  const usable = (token: string) =>
    db
      .selectFrom('operator_tokens')
      .innerJoin('operators', 'operators.id', 'operator_tokens.operator_id')
      .selectAll('operators')
      .select(['operator_tokens.pending_secret', 'operator_tokens.pending_browser'])
      .where('operator_tokens.token_hash', '=', secretHash(token))
      .where('operator_tokens.used_at', 'is', null)
      .where('operator_tokens.expires_at', '>', clock.now())
      .where('operators.disabled_at', 'is', null)
      .executeTakeFirst()

  return {
    /** The operator a usable setup link is for; nothing is made or changed (whoever asks). */
    async setupLink(token: string): Promise<Operator | undefined> {
      const found = await usable(token)
      return found && operatorOf(found)
    },

    /**
     * A new secret for the browser whose setup cookie holds `browser`, kept with the password's hash; whatever an
     * earlier visit was offered is void. Undefined when the link is no longer usable.
     */
    async offerSecret(
      token: string,
      input: { passwordHash: string; browser: string },
    ): Promise<{ operator: Operator; secret: string } | undefined> {
      const found = await usable(token)
      if (!found) return undefined
      const secret = newTotpSecret()
      const pending = {
        pending_secret: secret,
        pending_password_hash: input.passwordHash,
        pending_browser: secretHash(input.browser),
      }
      const updated = await db
        .updateTable('operator_tokens')
        .set(pending)
        .where('token_hash', '=', secretHash(token))
        .where('used_at', 'is', null)
        .executeTakeFirst()
      return updated.numUpdatedRows === 1n ? { operator: operatorOf(found), secret } : undefined
    },

    /**
     * The secret this browser was offered, if its offer is still the current one (`secret` undefined when another
     * browser has sent a password since, or this one never did); undefined when the link is no longer usable.
     */
    async offered(
      token: string,
      browser: string | undefined,
    ): Promise<{ operator: Operator; secret?: string } | undefined> {
      const found = await usable(token)
      if (!found) return undefined
      const mine =
        browser !== undefined && found.pending_browser === secretHash(browser) && found.pending_secret !== null
      return { operator: operatorOf(found), ...(mine ? { secret: found.pending_secret! } : {}) }
    },

    /**
     * Completes a setup from the browser that was offered `secret`: the token is used up (one statement, so two
     * submissions cannot both pass, nor one from another browser), the password sent with the offer and the secret
     * become the operator's, `step` (the confirming code's) is recorded as used, 10 recovery codes are made and
     * returned (shown once). Undefined when the link is no longer usable or the offer is no longer this browser's.
     */
    async completeSetup(
      token: string,
      input: { browser: string; secret: string; step: number; address: string },
    ): Promise<{ operator: Operator; recoveryCodes: string[] } | undefined> {
      const at = clock.now()
      const codes = newRecoveryCodes()
      return engine.transaction(async (trx) => {
        const used = await trx
          .updateTable('operator_tokens')
          .set({ used_at: at })
          .where('token_hash', '=', secretHash(token))
          .where('used_at', 'is', null)
          .where('expires_at', '>', at)
          .where('pending_secret', '=', input.secret)
          .where('pending_browser', '=', secretHash(input.browser))
          .where('pending_password_hash', 'is not', null)
          .returning(['operator_id', 'pending_password_hash'])
          .executeTakeFirst()
        if (!used) return undefined
        const id = used.operator_id
        // The used token keeps neither the secret nor the password's hash.
        await trx
          .updateTable('operator_tokens')
          .set({ pending_secret: null, pending_password_hash: null, pending_browser: null })
          .where('token_hash', '=', secretHash(token))
          .execute()
        const operatorValues = {
          password_hash: used.pending_password_hash!,
          totp_secret: input.secret,
          totp_last_step: input.step,
          password_changed_at: at,
        }
        const updated = await trx
          .updateTable('operators')
          .set(operatorValues)
          .where('id', '=', id)
          .where('disabled_at', 'is', null)
          .executeTakeFirst()
        if (updated.numUpdatedRows !== 1n) return undefined
        await trx.deleteFrom('operator_recovery_codes').where('operator_id', '=', id).execute()
        await trx
          .insertInto('operator_recovery_codes')
          .values(codes.map((code) => ({ code_hash: recoveryCodeHash(code)!, operator_id: id, used_at: null })))
          .execute()
        await trx.deleteFrom('operator_sessions').where('operator_id', '=', id).execute()
        const operator = operatorOf(
          await trx.selectFrom('operators').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
        )
        await writeAudit(
          trx,
          at,
          { kind: 'operator', operatorId: id, email: operator.email, address: input.address },
          { action: 'operator.setup_completed', target: { kind: 'operator', id } },
        )
        return { operator, recoveryCodes: codes }
      })
    },
  }
}
