// Versioned migrations, applied in name order and recorded by Kysely in `kysely_migration`.
import { Migrator, NO_MIGRATIONS, sql, type Kysely, type Migration, type MigrationResultSet } from 'kysely'
import { dialectOf } from './database.js'
import { initial } from './migrations/0001_initial.js'
import { idempotency } from './migrations/0002_idempotency.js'
import { messages } from './migrations/0003_messages.js'
import { keysUsage } from './migrations/0004_keys_usage.js'
import { portal } from './migrations/0005_portal.js'
import { orders } from './migrations/0006_orders.js'
import { portalAccounts } from './migrations/0007_portal_accounts.js'

export const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_idempotency': idempotency,
  '0003_messages': messages,
  '0004_keys_usage': keysUsage,
  '0005_portal': portal,
  '0006_orders': orders,
  '0007_portal_accounts': portalAccounts,
}

/**
 * On PostgreSQL the migration tables live in the connection's current schema, named explicitly: Kysely
 * otherwise takes a same-named table in any schema of the database for its own.
 */
async function migratorFor(db: Kysely<any>, list: Record<string, Migration> = migrations): Promise<Migrator> {
  const schema = dialectOf(db) === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined
  return new Migrator({ db, provider: { getMigrations: async () => list }, ...(schema ? { migrationTableSchema: schema } : {}) })
}

function unwrap(result: MigrationResultSet): string[] {
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')
    const cause = result.error instanceof Error ? result.error.message : String(result.error)
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${cause}`)
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}

/** Applies every pending migration; returns the names applied now (empty when up to date). */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  return unwrap(await (await migratorFor(db)).migrateToLatest())
}

/** Migrates down to (and keeping) `target`, or to an empty schema when target is undefined. Used by tests. */
export async function migrateDownTo(db: Kysely<any>, target: string | undefined): Promise<string[]> {
  return unwrap(await (await migratorFor(db)).migrateTo(target ?? NO_MIGRATIONS))
}
