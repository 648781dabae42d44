import { sql, type Kysely, type Migration } from 'kysely'
import { serialId } from './columns.js'

// Accounts, their API keys, pets, and service-wide settings (the cursor signing secret).
export const initial: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('accounts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('plan', 'text', (c) => c.notNull())
      .addColumn('per_minute', 'integer')
      .addColumn('per_day', 'integer')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute()

    await db.schema
      .createTable('api_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('key_prefix', 'text', (c) => c.notNull())
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('revoked_at', 'text')
      .execute()
    await db.schema.createIndex('api_keys_account_id').on('api_keys').column('account_id').execute()

    await db.schema
      .createTable('pets')
      .addColumn('id', ...serialId(db))
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('category_id', sql`bigint`, (c) => c.notNull())
      .addColumn('status', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute()
    // Keyset paging: every list query is an index range scan on (account, [status,] id).
    await db.schema.createIndex('pets_account_id_id').on('pets').columns(['account_id', 'id']).execute()
    await db.schema.createIndex('pets_account_status_id').on('pets').columns(['account_id', 'status', 'id']).execute()

    await db.schema
      .createTable('settings')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute()
  },

  async down(db: Kysely<unknown>) {
    for (const table of ['settings', 'pets', 'api_keys', 'accounts']) await db.schema.dropTable(table).execute()
  },
}
