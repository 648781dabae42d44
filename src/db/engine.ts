// How the service runs its hot queries and its writes on each database. The plain engine does everything
// through Kysely; the SQLite and PostgreSQL engines run precompiled SQL straight on the driver and commit writes
// the fastest way each database allows with the same guarantee: committed before the caller hears back.
import type { Database as SqliteDatabase, Statement } from 'better-sqlite3'
import type { Kysely } from 'kysely'
import type pg from 'pg'
import { createGroupCommit, type Work } from './group-commit.js'
import type { PipelinedReads } from './pipelined-reads.js'
import type { PgGroupCommit } from './pg-group-commit.js'
import type { Database } from './schema.js'

export interface Engine {
  /**
   * Runs compiled SQL that returns rows straight on the driver, for `executor` (the engine's database, or a
   * transaction it runs). Undefined when it cannot (e.g. SQLite's only connection is inside a transaction
   * that is not the engine's own): run it through Kysely then. `readOnly`: the statement is a SELECT.
   */
  rows?: (
    sql: string,
    name: string,
    values: readonly unknown[],
    executor: Kysely<Database>,
    readOnly: boolean,
  ) => unknown[] | Promise<unknown[]> | undefined
  /** Runs `work` in a transaction; resolves once it is committed. */
  transaction: <T>(work: Work<T>) => Promise<T>
  /** Runs `work`, one write statement; resolves once it is committed. */
  write: <T>(work: Work<T>) => Promise<T>
  /**
   * Runs `work` in a transaction it may share with the other writes of its turn, their statements interleaved
   * (PostgreSQL's group commit): only for work that relies on nothing it read, each statement a write of its own
   * (an INSERT, and the update of a row only it has, as an Idempotency-Key's). Resolves once committed.
   */
  writeTogether: <T>(work: Work<T>) => Promise<T>
  /** Engines that answer writes together (SQLite's commit groups) call `listener` after each batch of answers. */
  onWritesSettled?: (listener: () => void) => void
}

/** Everything through Kysely, one transaction per call. */
export function kyselyEngine(db: Kysely<Database>): Engine {
  return {
    transaction: (work) => db.transaction().execute(work),
    write: (work) => work(db),
    writeTogether: (work) => db.transaction().execute(work),
  }
}

/**
 * A statement that returns rows as arrays, and a function that makes each into an object. better-sqlite3
 * builds row objects by setting one property at a time from C++, which costs more than running our indexed
 * queries; an object literal of a fixed shape is cheap.
 */
function rawStatement(
  sqlite: SqliteDatabase,
  sql: string,
): { statement: Statement; toRow: (values: unknown[]) => unknown } {
  const statement = sqlite.prepare(sql).raw(true)
  const columns = statement.columns().map((c) => JSON.stringify(c.name))
  // The column names come from our own compiled SQL, never from a request.
  const toRow = new Function('v', `return {${columns.map((name, i) => `${name}: v[${i}]`).join(', ')}}`) as (
    values: unknown[],
  ) => unknown
  return { statement, toRow }
}

/** SQLite: statements run synchronously from the statement cache; writes are group-committed. */
export function sqliteEngine({ db, sqlite }: { db: Kysely<Database>; sqlite: SqliteDatabase }): Engine {
  const group = createGroupCommit({ db, sqlite })
  const statements = new Map<string, ReturnType<typeof rawStatement>>()
  return {
    rows: (sql, _name, values, executor) => {
      // Outside our own commit group, a statement run while a transaction is open (a Kysely one waiting on an
      // await) would run inside it.
      const direct = executor === db ? !sqlite.inTransaction : group.owns(executor)
      if (!direct) return undefined
      let raw = statements.get(sql)
      if (raw === undefined) statements.set(sql, (raw = rawStatement(sqlite, sql)))
      return (raw.statement.all(values as unknown[]) as unknown[][]).map(raw.toRow)
    },
    transaction: group.transaction,
    write: group.write,
    // SQLite's group runs its members one after another: each is as alone as in a transaction of its own.
    writeTogether: group.transaction,
    onWritesSettled: group.onSettled,
  }
}

/**
 * PostgreSQL: hot queries as named prepared statements (parsed and planned once per connection); reads over the
 * pipelined connections (pipelined-reads.ts), writes grouped by turn on connections of their own
 * (pg-group-commit.ts), or on the pool.
 */
export function postgresEngine({
  db,
  pool,
  reads,
  writes,
}: {
  db: Kysely<Database>
  pool: pg.Pool
  reads?: PipelinedReads
  /** Writes grouped by turn on pipelined connections (pg-group-commit.ts); through the pool without it. */
  writes?: PgGroupCommit
}): Engine {
  const plain = kyselyEngine(db)
  return {
    rows: (text, name, values, executor, readOnly) => {
      // A group's statements run straight on its connection, as named prepared statements.
      const group = writes?.clientOf(executor)
      if (group) return group.query({ name, text, values: values as unknown[] }).then((r) => r.rows)
      // Other transactions hold a client of their own: statements for one go through Kysely on that client.
      if (executor !== db) return undefined
      if (readOnly && reads) return reads.query(name, text, values as unknown[])
      return pool.query({ name, text, values: values as unknown[] }).then((r) => r.rows)
    },
    // A transaction that reads and then writes what it read (a row it locked, a count it checks) runs alone: in a
    // group its reads would not wait for another member's writes.
    transaction: plain.transaction,
    write: writes ? writes.transaction : plain.write,
    writeTogether: writes ? writes.transaction : plain.writeTogether,
  }
}
