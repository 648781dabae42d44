import { sql, type Kysely, type Migration } from 'kysely'

// The portal made safe for the public, and its account settings (issue 23):
// - accounts.deleted_at: a deleted account's keys are refused with their own message; its data is purged later.
// - portal_users.password_changed_at: a reset lifts the spraying limit for that address (epoch ms).
// - portal_sessions.user_agent / address: the account page lists its sessions.
// - portal_tokens.new_email: a change of address takes effect when the link sent to the new one is opened.
// - portal_login_failures by (address, at): the per-client-address spraying limit.
// - usage_*.client_errors / server_errors: requests by outcome (success = admitted − both; refused = 429).
export const portalAccounts: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('accounts').addColumn('deleted_at', 'text').execute()
    await db.schema.alterTable('portal_users').addColumn('password_changed_at', 'bigint').execute()
    await db.schema.alterTable('portal_sessions').addColumn('user_agent', 'text').execute()
    await db.schema.alterTable('portal_sessions').addColumn('address', 'text').execute()
    await db.schema.alterTable('portal_tokens').addColumn('new_email', 'text').execute()
    await db.schema
      .createIndex('portal_login_failures_address')
      .on('portal_login_failures')
      .columns(['address', 'at'])
      .execute()
    for (const table of ['usage_minutes', 'usage_days']) {
      await db.schema
        .alterTable(table)
        .addColumn('client_errors', sql`bigint`, (c) => c.notNull().defaultTo(0))
        .execute()
      await db.schema
        .alterTable(table)
        .addColumn('server_errors', sql`bigint`, (c) => c.notNull().defaultTo(0))
        .execute()
    }
  },

  async down(db: Kysely<unknown>) {
    for (const table of ['usage_days', 'usage_minutes']) {
      await db.schema.alterTable(table).dropColumn('server_errors').execute()
      await db.schema.alterTable(table).dropColumn('client_errors').execute()
    }
    await db.schema.dropIndex('portal_login_failures_address').execute()
    await db.schema.alterTable('portal_tokens').dropColumn('new_email').execute()
    await db.schema.alterTable('portal_sessions').dropColumn('address').execute()
    await db.schema.alterTable('portal_sessions').dropColumn('user_agent').execute()
    await db.schema.alterTable('portal_users').dropColumn('password_changed_at').execute()
    await db.schema.alterTable('accounts').dropColumn('deleted_at').execute()
  },
}
