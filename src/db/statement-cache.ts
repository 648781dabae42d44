// Kysely's SQLite driver prepares every query anew; preparing costs more than running our small indexed
// queries. The service runs a handful of query shapes over and over, so prepared statements are kept by
// their SQL text (better-sqlite3 statements are reusable; each runs synchronously to completion).
import type { Database as SqliteDatabase, Statement } from 'better-sqlite3'

/** Distinct SQL texts kept; beyond it the oldest is dropped (bulk inserts of varying size make new texts). */
const MAX_STATEMENTS = 512

/** `prepare`, answered from a cache of statements by SQL text. */
export function statementCache(db: SqliteDatabase): (sql: string) => Statement {
  const cache = new Map<string, Statement>()
  return (sql: string) => {
    let statement = cache.get(sql)
    if (statement === undefined) {
      statement = db.prepare(sql)
      if (cache.size >= MAX_STATEMENTS) cache.delete(cache.keys().next().value as string)
      cache.set(sql, statement)
    }
    return statement
  }
}

/** The database as Kysely's driver sees it: the same, but `prepare` goes through `cached`. */
export function withStatementCache(db: SqliteDatabase, cached: (sql: string) => Statement): SqliteDatabase {
  return new Proxy(db, {
    get(target, property, receiver) {
      if (property === 'prepare') return cached
      return Reflect.get(target, property, receiver)
    },
  })
}
