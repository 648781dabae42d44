// Kysely's SQLite driver prepares every query anew; preparing costs more than running our small indexed
// queries. The service runs a handful of query shapes over and over, so prepared statements are kept by
// their SQL text (better-sqlite3 statements are reusable; Kysely runs each synchronously to completion).
import type { Database as SqliteDatabase, Statement } from 'better-sqlite3'

/**
 * Distinct SQL texts kept; beyond it the oldest is dropped (bulk inserts of varying size make new texts, and
 * where the list query runs through Kysely, each page size is a text of its own).
 */
const MAX_STATEMENTS = 512

export function withStatementCache(db: SqliteDatabase): SqliteDatabase {
  const cache = new Map<string, Statement>()
  const prepare = db.prepare.bind(db)
  return new Proxy(db, {
    get(target, property, receiver) {
      if (property !== 'prepare') return Reflect.get(target, property, receiver)
      return (sql: string) => {
        let statement = cache.get(sql)
        if (statement === undefined) {
          statement = prepare(sql)
          if (cache.size >= MAX_STATEMENTS) cache.delete(cache.keys().next().value as string)
          cache.set(sql, statement)
        }
        return statement
      }
    },
  })
}
