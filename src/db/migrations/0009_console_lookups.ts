import type { Kysely, Migration } from 'kysely'

// What the operator console reads across all accounts (issue 24):
// - usage_minutes by minute, usage_days by day: the overview's last hour and today over every account are range
//   scans on time (the existing indexes lead with the key or the account); the purge's `< before` uses them too.
// - api_keys by key_prefix: finding the key behind a prefix pasted from a log is an index look-up, not a scan.
export const consoleLookups: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.createIndex('usage_minutes_minute').on('usage_minutes').column('minute').execute()
    await db.schema.createIndex('usage_days_day').on('usage_days').column('day').execute()
    await db.schema.createIndex('api_keys_key_prefix').on('api_keys').column('key_prefix').execute()
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('api_keys_key_prefix').execute()
    await db.schema.dropIndex('usage_days_day').execute()
    await db.schema.dropIndex('usage_minutes_minute').execute()
  },
}
