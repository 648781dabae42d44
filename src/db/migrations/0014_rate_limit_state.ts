import type { Kysely, Migration } from 'kysely'

// The rate limiter's counters and bans, kept in the database when there is no Redis (issue 34): a restart (a deploy,
// a crash) no longer hands every account a fresh day and lifts every ban. Written behind the requests, about once a
// second (modules/limits/persisted.store.ts); only the windows, refusal counts and bans in force are kept.
export const rateLimitState: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('rate_limit_counters')
      .addColumn('subject', 'text', (c) => c.notNull())
      // `window`: a quota window (name: minute, day); `refusals`: refused requests counted toward a ban.
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('seconds', 'bigint', (c) => c.notNull())
      .addColumn('window_start', 'bigint', (c) => c.notNull())
      .addColumn('window_end', 'bigint', (c) => c.notNull())
      .addColumn('count', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('rate_limit_counters_pk', ['subject', 'kind', 'name', 'seconds'])
      .execute()
    await db.schema
      .createTable('rate_limit_bans')
      .addColumn('subject', 'text', (c) => c.primaryKey())
      .addColumn('until', 'bigint', (c) => c.notNull())
      .execute()
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('rate_limit_bans').execute()
    await db.schema.dropTable('rate_limit_counters').execute()
  },
}
