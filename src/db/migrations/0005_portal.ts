import type { Kysely, Migration } from 'kysely'
import { serialId } from './columns.js'

// The developer portal: its users (one per account made by sign-up), emailed tokens, server-side sessions and
// failed log-ins (the throttle). Secrets (tokens, session ids) are stored only as SHA-256 hashes; instants the
// code compares are epoch milliseconds.
export const portal: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('portal_users')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().unique().references('accounts.id'))
      .addColumn('email', 'text', (c) => c.notNull())
      // The address lower-cased: one account per address whatever its case.
      .addColumn('email_key', 'text', (c) => c.notNull().unique())
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('verified_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute()

    await db.schema
      .createTable('portal_tokens')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('portal_users.id'))
      .addColumn('purpose', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .execute()
    await db.schema.createIndex('portal_tokens_user').on('portal_tokens').column('user_id').execute()

    await db.schema
      .createTable('portal_sessions')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull().references('portal_users.id'))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema.createIndex('portal_sessions_user').on('portal_sessions').column('user_id').execute()

    await db.schema
      .createTable('portal_login_failures')
      .addColumn('seq', ...serialId(db))
      .addColumn('email_key', 'text', (c) => c.notNull())
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('portal_login_failures_who')
      .on('portal_login_failures')
      .columns(['email_key', 'address', 'at'])
      .execute()
    await db.schema.createIndex('portal_login_failures_at').on('portal_login_failures').column('at').execute()
  },

  async down(db: Kysely<unknown>) {
    for (const table of ['portal_login_failures', 'portal_sessions', 'portal_tokens', 'portal_users'])
      await db.schema.dropTable(table).execute()
  },
}
