// Group commit for SQLite. With synchronous=FULL every COMMIT waits for the disk (about 0.1–0.5 ms here), and
// SQLite has one writer, so one transaction per request caps writes at a few thousand per second. Instead, the
// write transactions that arrive in one turn of the event loop run one after another inside a single database
// transaction, each in its own SAVEPOINT (a failing one is rolled back alone), and are committed together: one
// disk flush for the whole group. Nobody is answered before the COMMIT has returned, so every 201 still means
// "on disk"; if the COMMIT fails, every member of the group fails.
import type { Database as SqliteDatabase } from 'better-sqlite3'
import type { Kysely } from 'kysely'
import type { Database } from './schema.js'

/**
 * A unit of work in a transaction. It must use only the executor it is given: on SQLite its group holds the only
 * connection, so a query on the database itself would wait for the group, which waits for it.
 */
export type Work<T> = (trx: Kysely<Database>) => Promise<T>

interface Member {
  work: Work<unknown>
  /** One statement: SQLite undoes a failed statement by itself, so it needs no SAVEPOINT of its own. */
  single: boolean
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
  outcome?: { ok: true; value: unknown } | { ok: false; error: unknown }
}

/** Largest group; later arrivals wait for the next commit (bounds the time readers wait behind a group). */
const MAX_GROUP = 256

export function createGroupCommit({ db, sqlite }: { db: Kysely<Database>; sqlite: SqliteDatabase }) {
  let waiting: Member[] = []
  let scheduled = false
  /** The connection the running group's members get, while a group runs. */
  let running: Kysely<Database> | undefined
  /** Called once a group's members have been answered (see http/send-batching.ts). */
  const settledListeners: (() => void)[] = []

  // Statements of the group itself run straight on the handle: the group holds Kysely's only connection.
  const exec = (statement: string) => sqlite.exec(statement)

  async function runGroup(group: Member[]): Promise<void> {
    await db.connection().execute(async (connection) => {
      exec('BEGIN IMMEDIATE')
      running = connection
      try {
        for (const member of group) {
          if (!member.single) exec('SAVEPOINT member')
          try {
            member.outcome = { ok: true, value: await member.work(connection) }
            if (!member.single) exec('RELEASE member')
          } catch (error) {
            member.outcome = { ok: false, error }
            // Some failures (disk full, I/O) make SQLite roll the whole transaction back: the group fails.
            if (!sqlite.inTransaction) throw error
            if (!member.single) {
              exec('ROLLBACK TO member')
              exec('RELEASE member')
            }
          }
        }
        exec('COMMIT')
      } catch (error) {
        if (sqlite.inTransaction) exec('ROLLBACK')
        throw error
      } finally {
        running = undefined
      }
    })
  }

  async function flush(): Promise<void> {
    scheduled = false
    const group = waiting.slice(0, MAX_GROUP)
    waiting = waiting.slice(group.length)
    if (waiting.length > 0) schedule()
    try {
      await runGroup(group)
    } catch (error) {
      for (const member of group) member.reject(error)
      for (const listener of settledListeners) listener()
      return
    }
    for (const member of group) {
      const outcome = member.outcome!
      if (outcome.ok) member.resolve(outcome.value)
      else member.reject(outcome.error)
    }
    for (const listener of settledListeners) listener()
  }

  function schedule(): void {
    if (scheduled) return
    scheduled = true
    // After the I/O phase: every request read in this turn of the loop joins the group.
    setImmediate(() => void flush())
  }

  const join = <T>(work: Work<T>, single: boolean) =>
    new Promise<T>((resolve, reject) => {
      waiting.push({ work, single, resolve: resolve as (value: unknown) => void, reject })
      schedule()
    })

  return {
    /** Runs `work` in a transaction (shared with its group); resolves once that transaction is committed. */
    transaction: <T>(work: Work<T>) => join(work, false),
    /** The same for `work` that runs one statement. */
    write: <T>(work: Work<T>) => join(work, true),
    /** True for the connection of the running group: statements on it may run straight on the handle. */
    owns: (executor: Kysely<Database>) => executor === running,
    /** `listener` runs each time a group has resolved or rejected its members' promises. */
    onSettled: (listener: () => void) => void settledListeners.push(listener),
  }
}
