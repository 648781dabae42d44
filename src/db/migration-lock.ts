// The lock that lets one process at a time migrate a PostgreSQL schema. Kysely's own waits in one
// `pg_advisory_lock` call, which the connection's statement_timeout (DATABASE_TIMEOUT_MS, 5 s) cancels: two
// instances started at once on an empty schema, the second waiting while the first migrates on a loaded machine,
// and the second exited with "canceling statement due to statement timeout". Its lock is also one for the whole
// database, so services (or test runs) on other schemas waited for each other. This one is per schema, and
// waits by trying: each `pg_try_advisory_lock` returns at once, so no statement runs long whatever the wait.
import { PostgresAdapter, sql, type Kysely } from 'kysely'

/** The first half of the two-part advisory lock key ("PS" + "mg"); the second is the hash of the schema's name. */
const LOCK_CLASS = 0x5053_6d67
const RETRY_MS = 100
/** How long a process waits for another's migration before it gives up (a long index build, say). */
const MIGRATION_LOCK_WAIT_MS = 10 * 60 * 1000

const key = sql`${sql.lit(LOCK_CLASS)}, hashtext(current_schema())`

export class SchemaMigrationLockAdapter extends PostgresAdapter {
  constructor(private readonly waitMs = MIGRATION_LOCK_WAIT_MS) {
    super()
  }

  override async acquireMigrationLock(db: Kysely<any>): Promise<void> {
    const deadline = performance.now() + this.waitMs
    for (;;) {
      const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(${key}) as locked`.execute(db)
      if (rows[0]?.locked) return
      if (performance.now() > deadline)
        throw new Error(`another process has been migrating this schema for over ${Math.round(this.waitMs / 1000)} s`)
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS))
    }
  }

  override async releaseMigrationLock(db: Kysely<any>): Promise<void> {
    await sql`select pg_advisory_unlock(${key})`.execute(db)
  }
}

/** The same lock, taken by hand on a client of its own (tests hold it to stand for another process migrating). */
export const MIGRATION_LOCK_SQL = {
  lock: `select pg_advisory_lock(${LOCK_CLASS}, hashtext(current_schema()))`,
  unlock: `select pg_advisory_unlock(${LOCK_CLASS}, hashtext(current_schema()))`,
}
