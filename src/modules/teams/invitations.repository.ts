// Invitations to join an account (account_invitations): database access only. A token is stored as its hash;
// resending replaces it (the old link dies); accepting and revoking each happen once.
import type { Kysely } from 'kysely'
import type { Database, MemberRole } from '../../db/schema.js'
import { secretHash } from '../../kernel/secrets.js'

export interface Invitation {
  id: string
  accountId: string
  email: string
  /** The address as keys compare it (email-address.ts): the one whose user may accept. */
  emailKey: string
  role: MemberRole
  invitedBy: string
  createdAt: number
  expiresAt: number
  acceptedAt: number | null
  revokedAt: number | null
}

const invitationOf = (r: Database['account_invitations']): Invitation => ({
  id: r.id,
  accountId: r.account_id,
  email: r.email,
  emailKey: r.email_key,
  role: r.role,
  invitedBy: r.invited_by,
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
  acceptedAt: r.accepted_at === null ? null : Number(r.accepted_at),
  revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
})

export function invitationsRepository(db: Kysely<Database>) {
  return {
    async insert(i: Omit<Invitation, 'acceptedAt' | 'revokedAt'> & { token: string }) {
      await db
        .insertInto('account_invitations')
        .values({
          id: i.id,
          account_id: i.accountId,
          email: i.email,
          email_key: i.emailKey,
          role: i.role,
          token_hash: secretHash(i.token),
          invited_by: i.invitedBy,
          created_at: i.createdAt,
          expires_at: i.expiresAt,
          accepted_at: null,
          revoked_at: null,
        })
        .execute()
    },

    /** Invitations made for the account since `since` (the daily cap counts them, revoked ones included). */
    async countSince(accountId: string, since: number): Promise<number> {
      const row = await db
        .selectFrom('account_invitations')
        .select((eb) => eb.fn.countAll<number | bigint | string>().as('n'))
        .where('account_id', '=', accountId)
        .where('created_at', '>', since)
        .executeTakeFirstOrThrow()
      return Number(row.n)
    },

    /** The account's invitations still open (neither accepted, revoked nor expired), newest first. */
    async pending(accountId: string, now: number): Promise<Invitation[]> {
      const rows = await db
        .selectFrom('account_invitations')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .orderBy('created_at', 'desc')
        .execute()
      return rows.map(invitationOf)
    },

    async byId(accountId: string, id: string): Promise<Invitation | undefined> {
      const row = await db
        .selectFrom('account_invitations')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .executeTakeFirst()
      return row && invitationOf(row)
    },

    async byToken(token: string): Promise<Invitation | undefined> {
      const row = await db
        .selectFrom('account_invitations')
        .selectAll()
        .where('token_hash', '=', secretHash(token))
        .executeTakeFirst()
      return row && invitationOf(row)
    },

    /** A new token for an open invitation (resend), with a new expiry. */
    async renew(id: string, token: string, expiresAt: number): Promise<boolean> {
      const result = await db
        .updateTable('account_invitations')
        .set({ token_hash: secretHash(token), expires_at: expiresAt })
        .where('id', '=', id)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },

    async revoke(id: string, at: number): Promise<boolean> {
      const result = await db
        .updateTable('account_invitations')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },

    /** Marks it accepted if it is still open at `at`: true for the one request that accepted it. */
    async accept(id: string, at: number): Promise<boolean> {
      const result = await db
        .updateTable('account_invitations')
        .set({ accepted_at: at })
        .where('id', '=', id)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', at)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },

    removeAll: async (accountId: string) =>
      void (await db.deleteFrom('account_invitations').where('account_id', '=', accountId).execute()),
  }
}
