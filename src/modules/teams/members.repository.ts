// Who belongs to which account, with what role (account_members): database access only.
import type { Kysely } from 'kysely'
import type { Database, MemberRole } from '../../db/schema.js'

export interface Membership {
  accountId: string
  userId: string
  role: MemberRole
  createdAt: number
}

const membershipOf = (r: Database['account_members']): Membership => ({
  accountId: r.account_id,
  userId: r.user_id,
  role: r.role,
  createdAt: Number(r.created_at),
})

export function membersRepository(db: Kysely<Database>) {
  return {
    async membership(userId: string, accountId: string): Promise<Membership | undefined> {
      const row = await db
        .selectFrom('account_members')
        .selectAll()
        .where('user_id', '=', userId)
        .where('account_id', '=', accountId)
        .executeTakeFirst()
      return row && membershipOf(row)
    },

    /** The user's memberships, oldest first. */
    async membershipsOf(userId: string): Promise<Membership[]> {
      const rows = await db
        .selectFrom('account_members')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created_at')
        .orderBy('account_id')
        .execute()
      return rows.map(membershipOf)
    },

    async membersOf(accountId: string): Promise<Membership[]> {
      const rows = await db
        .selectFrom('account_members')
        .selectAll()
        .where('account_id', '=', accountId)
        .orderBy('created_at')
        .orderBy('user_id')
        .execute()
      return rows.map(membershipOf)
    },

    async count(accountId: string, role?: MemberRole): Promise<number> {
      let query = db
        .selectFrom('account_members')
        .select((eb) => eb.fn.countAll<number | bigint | string>().as('n'))
        .where('account_id', '=', accountId)
      if (role) query = query.where('role', '=', role)
      return Number((await query.executeTakeFirstOrThrow()).n)
    },

    async add(m: Membership): Promise<boolean> {
      const result = await db
        .insertInto('account_members')
        .values({ account_id: m.accountId, user_id: m.userId, role: m.role, created_at: m.createdAt })
        .onConflict((oc) => oc.columns(['account_id', 'user_id']).doNothing())
        .executeTakeFirst()
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1
    },

    async setRole(accountId: string, userId: string, role: MemberRole): Promise<void> {
      await db
        .updateTable('account_members')
        .set({ role })
        .where('account_id', '=', accountId)
        .where('user_id', '=', userId)
        .execute()
    },

    async remove(accountId: string, userId: string): Promise<boolean> {
      const result = await db
        .deleteFrom('account_members')
        .where('account_id', '=', accountId)
        .where('user_id', '=', userId)
        .executeTakeFirst()
      return Number(result.numDeletedRows) === 1
    },

    /** Every membership in the account (it is being deleted). */
    removeAll: async (accountId: string) =>
      void (await db.deleteFrom('account_members').where('account_id', '=', accountId).execute()),

    /** Accounts with a member whose address key contains a fragment are found by the console (through its ids). */
    accountsOf: async (userIds: readonly string[]): Promise<Membership[]> =>
      userIds.length === 0
        ? []
        : (await db.selectFrom('account_members').selectAll().where('user_id', 'in', userIds).execute()).map(
            membershipOf,
          ),

    async requiresTwoFactor(accountId: string): Promise<boolean> {
      const row = await db
        .selectFrom('account_team_settings')
        .select('require_two_factor')
        .where('account_id', '=', accountId)
        .executeTakeFirst()
      return Number(row?.require_two_factor ?? 0) === 1
    },

    async setRequireTwoFactor(accountId: string, on: boolean): Promise<void> {
      await db
        .insertInto('account_team_settings')
        .values({ account_id: accountId, require_two_factor: on ? 1 : 0 })
        .onConflict((oc) => oc.column('account_id').doUpdateSet({ require_two_factor: on ? 1 : 0 }))
        .execute()
    },
  }
}
