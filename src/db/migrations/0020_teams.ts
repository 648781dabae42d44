import { sql, type Kysely, type Migration } from 'kysely'

// Teams (issue 38), owned by src/modules/teams/: an account's members (portal users) with a role each, the
// invitations that make new ones, and the account's own team settings. Every existing portal user becomes the
// owner of the account made at their sign-up, so nothing changes for them until they invite someone. A portal
// session remembers which of its user's accounts it is working in (portal_sessions.account_id).
export const teams: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('account_members')
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('user_id', 'text', (c) => c.notNull().references('portal_users.id').onDelete('cascade'))
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('account_members_pk', ['account_id', 'user_id'])
      .execute()
    await db.schema.createIndex('account_members_user').on('account_members').column('user_id').execute()
    await sql`insert into account_members (account_id, user_id, role, created_at)
      select account_id, id, 'owner', 0 from portal_users`.execute(db)
    // A link mailed to an address (its token stored as a hash), valid until expires_at, used or revoked once.
    await db.schema
      .createTable('account_invitations')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('email_key', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('invited_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('accepted_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .execute()
    await db.schema
      .createIndex('account_invitations_account')
      .on('account_invitations')
      .columns(['account_id', 'created_at'])
      .execute()
    await db.schema
      .createTable('account_team_settings')
      .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id'))
      .addColumn('require_two_factor', 'integer', (c) => c.notNull())
      .execute()
    await db.schema.alterTable('portal_sessions').addColumn('account_id', 'text').execute()
  },

  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('portal_sessions').dropColumn('account_id').execute()
    for (const table of ['account_team_settings', 'account_invitations', 'account_members'])
      await db.schema.dropTable(table).execute()
  },
}
