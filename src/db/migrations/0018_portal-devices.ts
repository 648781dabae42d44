import type { Kysely, Migration } from 'kysely'

// The browsers each portal user has signed in from (issue 37's security mail): a sign-in from one not listed here is
// mailed to the user. A browser is known by a long-lived random cookie, stored as its SHA-256 hash (a database dump
// does not hold a cookie that marks a browser as known), never by a fingerprint.
export const portalDevices: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('portal_devices')
      .addColumn('user_id', 'text', (c) => c.notNull().references('portal_users.id'))
      .addColumn('device_hash', 'text', (c) => c.notNull())
      .addColumn('first_seen_at', 'text', (c) => c.notNull())
      .addColumn('last_seen_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('portal_devices_pk', ['user_id', 'device_hash'])
      .execute()
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('portal_devices').execute()
  },
}
