import { sql, type Kysely, type Migration } from 'kysely'

// Key lifecycle (names, expiry, roll with a grace period, last used) and request usage counts.
// Usage counts are per key per minute and per key per UTC day, added to by every instance (upsert-increment).
export const keysUsage: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('api_keys').addColumn('name', 'text').execute()
    // ISO instants, like created_at. last_used_at has minute precision (the start of the minute).
    await db.schema.alterTable('api_keys').addColumn('last_used_at', 'text').execute()
    await db.schema.alterTable('api_keys').addColumn('expires_at', 'text').execute()
    // A rolled key: when, by which key, and when its grace period ends (it is refused from then on).
    await db.schema.alterTable('api_keys').addColumn('rolled_at', 'text').execute()
    await db.schema.alterTable('api_keys').addColumn('replaced_by', 'text').execute()
    await db.schema.alterTable('api_keys').addColumn('grace_ends_at', 'text').execute()

    for (const [table, column] of [
      ['usage_minutes', 'minute'],
      ['usage_days', 'day'],
    ] as const) {
      await db.schema
        .createTable(table)
        .addColumn('key_id', 'text', (c) => c.notNull())
        .addColumn(column, 'text', (c) => c.notNull())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('admitted', sql`bigint`, (c) => c.notNull().defaultTo(0))
        .addColumn('refused', sql`bigint`, (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint(`${table}_pk`, ['key_id', column])
        .execute()
      // The account's series and the purge are range scans on (account, time).
      await db.schema.createIndex(`${table}_account_${column}`).on(table).columns(['account_id', column]).execute()
    }
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('usage_days').execute()
    await db.schema.dropTable('usage_minutes').execute()
    for (const column of ['grace_ends_at', 'replaced_by', 'rolled_at', 'expires_at', 'last_used_at', 'name']) {
      await db.schema.alterTable('api_keys').dropColumn(column).execute()
    }
  },
}
