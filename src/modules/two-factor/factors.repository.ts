// The second factors' rows (portal_two_factor, portal_passkeys, portal_recovery_codes): database access only, on
// whatever executor it is given (the service passes a transaction when an audit entry goes with the change).
import type { Kysely } from 'kysely'
import type { Database } from '../../db/schema.js'
import { recoveryCodeHash } from '../sign-in/recovery-codes.js'

export interface PasskeyRow {
  id: string
  userId: string
  name: string
  publicKey: string
  counter: number
  transports: string[] | undefined
  createdAt: number
  lastUsedAt: number | null
}

const passkeyOf = (r: Database['portal_passkeys']): PasskeyRow => ({
  id: r.id,
  userId: r.user_id,
  name: r.name,
  publicKey: r.public_key,
  counter: Number(r.counter),
  transports: r.transports === null ? undefined : (JSON.parse(r.transports) as string[]),
  createdAt: Number(r.created_at),
  lastUsedAt: r.last_used_at === null ? null : Number(r.last_used_at),
})

export function factorsRepository(db: Kysely<Database>) {
  return {
    async totpOf(userId: string): Promise<{ sealed: string; confirmed: boolean } | undefined> {
      const row = await db
        .selectFrom('portal_two_factor')
        .select(['totp_secret', 'totp_confirmed_at'])
        .where('user_id', '=', userId)
        .executeTakeFirst()
      if (!row || row.totp_secret === null) return undefined
      return { sealed: row.totp_secret, confirmed: row.totp_confirmed_at !== null }
    },

    /** A secret awaiting its first code (replaces an unconfirmed one; a confirmed one stays until removed). */
    async setPendingTotp(userId: string, sealed: string): Promise<void> {
      await db
        .insertInto('portal_two_factor')
        .values({
          user_id: userId,
          totp_secret: sealed,
          totp_confirmed_at: null,
          totp_last_step: null,
          locked_until: null,
        })
        .onConflict((oc) =>
          oc
            .column('user_id')
            .doUpdateSet({ totp_secret: sealed, totp_confirmed_at: null, totp_last_step: null })
            .where('portal_two_factor.totp_confirmed_at', 'is', null),
        )
        .execute()
    },

    async confirmTotp(userId: string, at: number, step: number): Promise<boolean> {
      const result = await db
        .updateTable('portal_two_factor')
        .set({ totp_confirmed_at: at, totp_last_step: step })
        .where('user_id', '=', userId)
        .where('totp_secret', 'is not', null)
        .where('totp_confirmed_at', 'is', null)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },

    async removeTotp(userId: string): Promise<boolean> {
      const result = await db
        .updateTable('portal_two_factor')
        .set({ totp_secret: null, totp_confirmed_at: null, totp_last_step: null })
        .where('user_id', '=', userId)
        .where('totp_secret', 'is not', null)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },

    /** Records `step` as used if no later or equal step was: one statement, so a code works once everywhere. */
    async acceptTotpStep(userId: string, step: number): Promise<boolean> {
      const result = await db
        .updateTable('portal_two_factor')
        .set({ totp_last_step: step })
        .where('user_id', '=', userId)
        .where('totp_confirmed_at', 'is not', null)
        .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },

    async passkeysOf(userId: string): Promise<PasskeyRow[]> {
      const rows = await db
        .selectFrom('portal_passkeys')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created_at')
        .execute()
      return rows.map(passkeyOf)
    },

    async passkey(id: string): Promise<PasskeyRow | undefined> {
      const row = await db.selectFrom('portal_passkeys').selectAll().where('id', '=', id).executeTakeFirst()
      return row && passkeyOf(row)
    },

    async addPasskey(p: Omit<PasskeyRow, 'lastUsedAt'>): Promise<void> {
      await db
        .insertInto('portal_passkeys')
        .values({
          id: p.id,
          user_id: p.userId,
          name: p.name,
          public_key: p.publicKey,
          counter: p.counter,
          transports: p.transports === undefined ? null : JSON.stringify(p.transports),
          created_at: p.createdAt,
          last_used_at: null,
        })
        .execute()
    },

    async removePasskey(userId: string, id: string): Promise<PasskeyRow | undefined> {
      const row = await db
        .deleteFrom('portal_passkeys')
        .where('user_id', '=', userId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst()
      return row && passkeyOf(row)
    },

    /** The new counter and time of use, if the counter is still the one read (two uses at once: one wins). */
    async usedPasskey(id: string, fromCounter: number, toCounter: number, at: number): Promise<boolean> {
      const result = await db
        .updateTable('portal_passkeys')
        .set({ counter: toCounter, last_used_at: at })
        .where('id', '=', id)
        .where('counter', '=', fromCounter)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },

    /** The user's recovery codes become these (hashes): the old set is void. */
    async replaceRecoveryCodes(userId: string, hashes: string[]): Promise<void> {
      await db.deleteFrom('portal_recovery_codes').where('user_id', '=', userId).execute()
      await db
        .insertInto('portal_recovery_codes')
        .values(hashes.map((code_hash) => ({ code_hash, user_id: userId, used_at: null })))
        .execute()
    },

    /** Uses up one unused recovery code of the user (one statement: a code works once). */
    async useRecoveryCode(userId: string, code: string, at: number): Promise<boolean> {
      const hash = recoveryCodeHash(code)
      if (hash === undefined) return false
      const result = await db
        .updateTable('portal_recovery_codes')
        .set({ used_at: at })
        .where('code_hash', '=', hash)
        .where('user_id', '=', userId)
        .where('used_at', 'is', null)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },

    async recoveryCodesLeft(userId: string): Promise<number> {
      const row = await db
        .selectFrom('portal_recovery_codes')
        .select((eb) => eb.fn.countAll<number | bigint | string>().as('n'))
        .where('user_id', '=', userId)
        .where('used_at', 'is', null)
        .executeTakeFirstOrThrow()
      return Number(row.n)
    },

    /** Every second factor of the user gone (an operator's reset, the last factor removed): codes, lock too. */
    async clearAll(userId: string): Promise<void> {
      await db.deleteFrom('portal_passkeys').where('user_id', '=', userId).execute()
      await db.deleteFrom('portal_recovery_codes').where('user_id', '=', userId).execute()
      await db.deleteFrom('portal_two_factor').where('user_id', '=', userId).execute()
      await db.deleteFrom('portal_code_failures').where('user_id', '=', userId).execute()
    },

    async clearRecoveryCodes(userId: string): Promise<void> {
      await db.deleteFrom('portal_recovery_codes').where('user_id', '=', userId).execute()
    },
  }
}
