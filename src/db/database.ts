// Opens the database named by DATABASE_URL. SQLite (better-sqlite3) is the embedded default;
// every query goes through Kysely so the PostgreSQL dialect can run the same code.
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import SQLite from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
import type { Database } from './schema.js'

export type Dialect = 'sqlite'

export interface DatabaseHandle {
  db: Kysely<Database>
  dialect: Dialect
  /** Where the data lives, without credentials; safe to print. */
  location: string
  close: () => Promise<void>
}

/** Resolves a DATABASE_URL to a SQLite file path (or `:memory:`); throws for schemes we do not speak. */
export function sqlitePathFromUrl(url: string): string {
  if (url.startsWith('sqlite://')) return url.slice('sqlite://'.length)
  if (url.startsWith('sqlite:')) return url.slice('sqlite:'.length)
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)
  if (scheme) throw new Error(`DATABASE_URL: unsupported database scheme "${scheme[1]}:"; use a file path or a sqlite: URL`)
  return url
}

export function openDatabase(url: string): DatabaseHandle {
  const path = sqlitePathFromUrl(url)
  if (path === '') throw new Error('DATABASE_URL: the SQLite path is empty')
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const sqlite = new SQLite(path)
  // WAL lets readers run beside the single writer; FULL makes every commit durable before we answer.
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('synchronous = FULL')
  sqlite.pragma('foreign_keys = ON')
  // The CLI and the server may write at the same time; wait for the lock instead of failing.
  sqlite.pragma('busy_timeout = 5000')
  // int64 columns (pet ids, category ids) must not round through JavaScript numbers.
  sqlite.defaultSafeIntegers(true)
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) })
  return { db, dialect: 'sqlite', location: path, close: () => db.destroy() }
}
