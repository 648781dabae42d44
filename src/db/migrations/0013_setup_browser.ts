import { sql, type Kysely, type Migration } from 'kysely'

// A setup link's secret belongs to one browser (issue 32). Before, the TOTP secret was made when the link was first
// opened and shown to whoever opened it (a chat tool's link preview included), and a code from any copy confirmed
// it. Now the browser that sends the new password gets a secret made for it; kept with the token until that same
// browser confirms it with a code: the hash of a random value in that browser's setup cookie, and the password's
// hash. A later visitor's password replaces all three (the earlier secret, never confirmed, is void).
export const setupBrowser: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('operator_tokens').addColumn('pending_browser', 'text').execute()
    await db.schema.alterTable('operator_tokens').addColumn('pending_password_hash', 'text').execute()
    // A secret offered the old way (to whoever opened the link) is void: the operator starts the setup again.
    await sql`update operator_tokens set pending_secret = null where used_at is null`.execute(db)
  },

  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('operator_tokens').dropColumn('pending_password_hash').execute()
    await db.schema.alterTable('operator_tokens').dropColumn('pending_browser').execute()
  },
}
