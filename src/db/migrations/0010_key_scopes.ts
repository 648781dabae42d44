import type { Kysely, Migration } from 'kysely'

// Restricted keys (issue 26): what a key may do, its scopes space-separated (accounts/key-scopes.ts). Every key
// that exists when this runs gets every scope (the default fills them in), so it keeps working exactly as before.
// The list is written out here, not imported: a migration must do the same thing whatever the code later offers.
const ALL_SCOPES = 'pets:read pets:write orders:read orders:write messages:write'

export const keyScopes: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('api_keys')
      .addColumn('scopes', 'text', (c) => c.notNull().defaultTo(ALL_SCOPES))
      .execute()
  },

  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('api_keys').dropColumn('scopes').execute()
  },
}
