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
import { consoleAudit } from './migrations/0008_console_audit.js'
import { consoleLookups } from './migrations/0009_console_lookups.js'
import { keyScopes } from './migrations/0010_key_scopes.js'
import { auditAge } from './migrations/0011_audit_age.js'
import { setupBrowser } from './migrations/0013_setup_browser.js'
import { rateLimitState } from './migrations/0014_rate_limit_state.js'
import { webhooks } from './migrations/0015_webhooks.js'
import { eventSize } from './migrations/0016_event-size.js'
import { eventQueue } from './migrations/0017_event-queue.js'
import { portalDevices } from './migrations/0018_portal-devices.js'
import { portalTwoFactor } from './migrations/0019_portal-two-factor.js'
import { teams } from './migrations/0020_teams.js'
import { eventStreams } from './migrations/0021_event-streams.js'

export const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_idempotency': idempotency,
  '0003_messages': messages,
  '0004_keys_usage': keysUsage,
  '0005_portal': portal,
  '0006_orders': orders,
  '0007_portal_accounts': portalAccounts,
  '0008_console_audit': consoleAudit,
  '0009_console_lookups': consoleLookups,
  '0010_key_scopes': keyScopes,
  '0011_audit_age': auditAge,
  '0013_setup_browser': setupBrowser,
  '0014_rate_limit_state': rateLimitState,
  '0015_webhooks': webhooks,
  '0016_event-size': eventSize,
  '0017_event-queue': eventQueue,
  '0018_portal-devices': portalDevices,
  '0019_portal-two-factor': portalTwoFactor,
  '0020_teams': teams,
  '0021_event-streams': eventStreams,
}

/** Where `migrateToLatest` reports each migration it applied (pino's signature; `serve` passes its logger). */
interface MigrationLog {
  info: (fields: { migration: string; durationMs: number }, message: string) => void
}

interface MigrationState {
  name: string
  /** When it was applied (ISO 8601), or null while pending. */
  appliedAt: string | null
}

/**
 * On PostgreSQL the migration tables live in the connection's current schema, named explicitly: Kysely
 * otherwise takes a same-named table in any schema of the database for its own.
 */
async function migratorFor(db: Kysely<any>, list: Record<string, Migration> = migrations): Promise<Migrator> {
  const schema =
    dialectOf(db) === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined
  return new Migrator({
    db,
    provider: { getMigrations: async () => list },
    ...(schema ? { migrationTableSchema: schema } : {}),
  })
}

function unwrap(result: MigrationResultSet): string[] {
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')
    const cause = result.error instanceof Error ? result.error.message : String(result.error)
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${cause}`)
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}

/** Each migration's `up`, timed into `durations` (Kysely reports names only). */
function timed(durations: Map<string, number>): Record<string, Migration> {
  return Object.fromEntries(
    Object.entries(migrations).map(([name, migration]) => [
      name,
      {
        ...migration,
        up: async (db: Kysely<any>) => {
          const started = performance.now()
          await migration.up(db)
          durations.set(name, Math.round(performance.now() - started))
        },
      },
    ]),
  )
}

/**
 * Applies every pending migration; returns the names applied now (empty when up to date). Each is reported to
 * `log` once the whole run has succeeded: on PostgreSQL the run is one transaction, so a migration that ran
 * before a failing one was rolled back with it and must not be reported applied.
 */
export async function migrateToLatest(db: Kysely<any>, log?: MigrationLog): Promise<string[]> {
  const durations = new Map<string, number>()
  const applied = unwrap(await (await migratorFor(db, timed(durations))).migrateToLatest())
  for (const name of applied) log?.info({ migration: name, durationMs: durations.get(name) ?? 0 }, 'applied migration')
  return applied
}

/** Every migration this version has, in order, with when it was applied (null: pending). Changes nothing. */
export async function migrationStatus(db: Kysely<any>): Promise<MigrationState[]> {
  const list = await (await migratorFor(db)).getMigrations()
  return list.map((m) => ({ name: m.name, appliedAt: m.executedAt ? m.executedAt.toISOString() : null }))
}

/** Migrates down to (and keeping) `target`, or to an empty schema when target is undefined. Used by tests. */
export async function migrateDownTo(db: Kysely<any>, target: string | undefined): Promise<string[]> {
  return unwrap(await (await migratorFor(db)).migrateTo(target ?? NO_MIGRATIONS))
}
