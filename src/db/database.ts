// Opens the database named by DATABASE_URL: SQLite (better-sqlite3, the embedded default) or PostgreSQL
// (a `pg` pool). Every query goes through Kysely, so the same code runs on both.
import { existsSync, mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import SQLite from 'better-sqlite3'
import { Kysely, PostgresAdapter, SqliteDialect } from 'kysely'
import { OwnSchemaPostgresDialect } from './own-schema-dialect.js'
import { createRequire } from 'node:module'
import type pg from 'pg'
import { postgresEngine, sqliteEngine, type Engine } from './engine.js'
import { createPipelinedReads, type PipelinedReads } from './pipelined-reads.js'
import { createPgGroupCommit } from './pg-group-commit.js'
import type { Database } from './schema.js'
import { withStatementCache } from './statement-cache.js'
import { parseDatabaseUrl, type DatabaseTarget } from '../kernel/database-url.js'

export type Dialect = 'sqlite' | 'postgres'

export interface DatabaseHandle {
  db: Kysely<Database>
  dialect: Dialect
  /** Where the data lives, without credentials; safe to print. */
  location: string
  /** How hot queries and writes run on this database (see engine.ts). */
  engine: Engine
  /** The PostgreSQL pool (absent on SQLite), for health checks and metrics. */
  pool?: pg.Pool
  /** PostgreSQL's pipelined read connections (pipelined-reads.ts), unless turned off. */
  reads?: PipelinedReads
  close: () => Promise<void>
}

interface DatabaseOptions {
  /** PostgreSQL: connections in the pool. */
  poolSize?: number
  /** PostgreSQL: pipelined connections for the hot reads; 0 sends them through the pool. */
  pipelinedConnections?: number
  /** PostgreSQL: longest wait for one statement (DATABASE_TIMEOUT_MS). */
  timeoutMs?: number
  /** SQLite: the connection's page cache in MiB. */
  sqliteCacheMb?: number
  /**
   * SQLite: open an existing file only (DatabaseMissing otherwise, and nothing is created, not even its folder): a
   * mistyped path must not become a new, empty database.
   */
  mustExist?: boolean
  /** SQLite: open read-only (and existing only): nothing is written to the file, not even its journal mode. */
  readOnly?: boolean
  /**
   * SQLite `:memory:`: start from this image of a database (better-sqlite3's `serialize()`) instead of an empty one.
   * The tests open each harness's database from one migrated image: migrating costs ~35 ms of CPU a test.
   */
  sqliteImage?: Buffer
}

/**
 * A SQLite database that had to exist and does not: nothing was created. The message names DATABASE_URL and the
 * path; the caller adds how to make one (each command has its own way).
 */
export class DatabaseMissing extends Error {
  constructor(url: string, path: string) {
    super(`DATABASE_URL=${url}: no database at ${path}; check the path`)
  }
}

const DEFAULT_SQLITE_CACHE_MB = 2
const DEFAULT_TIMEOUT_MS = 5_000
/** How long a new PostgreSQL connection may take (refused, or no answer at all). */
const CONNECT_TIMEOUT_MS = 2_000
/** The client waits this much longer than `statement_timeout`, so the server's own cancel normally comes first. */
const CLIENT_TIMEOUT_MARGIN_MS = 500
/** Idle pooled connections are probed (TCP keep-alive) after this long without traffic. */
const KEEP_ALIVE_DELAY_MS = 10_000

const PG_INT8 = 20

export const isPostgresUrl = (url: string) => /^postgres(ql)?:/i.test(url)

/** The dialect a Kysely instance speaks (migrations and a few queries differ). */
export function dialectOf(db: Kysely<any>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite'
}

/** What a DATABASE_URL names (database-url.ts); a bad one throws naming DATABASE_URL and the problem. */
function targetOf(url: string): DatabaseTarget {
  try {
    return parseDatabaseUrl(url)
  } catch (error) {
    throw new Error(`DATABASE_URL: ${(error as Error).message}`)
  }
}

/** Resolves a DATABASE_URL to a SQLite file path (or `:memory:`); throws for anything else. */
export function sqlitePathFromUrl(url: string): string {
  const target = targetOf(url)
  if (target.dialect !== 'sqlite') throw new Error('DATABASE_URL: not a SQLite database')
  return target.path
}

function openSqlite(url: string, path: string, options: DatabaseOptions): DatabaseHandle {
  const existing = options.mustExist || options.readOnly
  if (path !== ':memory:' && existing && !existsSync(path)) throw new DatabaseMissing(url, path)
  if (path !== ':memory:' && !existing) mkdirSync(dirname(path), { recursive: true })
  const source = path === ':memory:' && options.sqliteImage ? options.sqliteImage : path
  const sqlite = new SQLite(source, options.readOnly ? { readonly: true, fileMustExist: true } : {})
  // WAL lets readers run beside the single writer; FULL makes every commit durable before we answer. (A read-only
  // connection reads the file in whatever mode its writers set.)
  if (!options.readOnly) sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('synchronous = FULL')
  sqlite.pragma('foreign_keys = ON')
  // The CLI, other workers and the server may write at the same time; wait for the lock instead of failing.
  sqlite.pragma('busy_timeout = 5000')
  // better-sqlite3 builds SQLite with a 16 MiB page cache; under writes it fills and stays, a seventh of the
  // service's memory. The hot queries are index seeks of a few pages, and what leaves this cache is still in the
  // operating system's: SQLite's own default of 2 MiB measured the same CPU per request (bench/optimisations.md).
  sqlite.pragma(`cache_size = ${-1024 * (options.sqliteCacheMb ?? DEFAULT_SQLITE_CACHE_MB)}`)
  // int64 columns (pet ids, category ids) must not round through JavaScript numbers.
  sqlite.defaultSafeIntegers(true)
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) })
  return { db, dialect: 'sqlite', location: path, engine: sqliteEngine({ db, sqlite }), close: () => db.destroy() }
}

// The PostgreSQL driver is loaded only for a postgres:// URL: ~15 MB of memory the embedded default does not need.
const require = createRequire(import.meta.url)

function openPostgres(url: string, options: DatabaseOptions): DatabaseHandle {
  const pg = require('pg') as typeof import('pg')
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  // What every connection is opened with: the pool's and the pipelined reads'.
  const connection = {
    connectionString: url,
    // Fail fast when the database is unreachable: requests get a prompt 503, not a hang. A silent partition
    // (packets dropped, no reset) is caught by the same bounds: a new connection by the connect timeout, a
    // statement under way by query_timeout (the server's statement_timeout cannot help when nothing arrives),
    // an idle pooled connection by TCP keep-alive.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: timeoutMs,
    query_timeout: timeoutMs + CLIENT_TIMEOUT_MARGIN_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEP_ALIVE_DELAY_MS,
    // int8 (bigint) columns come back as bigint, never as a rounded number or a string.
    types: {
      getTypeParser: (oid: number, format?: string) =>
        oid === PG_INT8 ? (v: string) => BigInt(v) : pg.types.getTypeParser(oid, format as 'text'),
    } as never,
  }
  // pg-pool bounds two waits with its one connectionTimeoutMillis: opening a new connection, and waiting for a
  // free one. A burst of requests queued for a busy but healthy database may wait as long as a statement may run;
  // a connection that cannot be opened in CONNECT_TIMEOUT_MS is an outage. So the pool gets the longer bound and
  // each client enforces the connect timeout itself (pg's Client honours its own connectionTimeoutMillis).
  class Client extends pg.Client {
    constructor(config?: import('pg').ClientConfig) {
      super({ ...config, connectionTimeoutMillis: CONNECT_TIMEOUT_MS })
    }
  }
  const pool = new pg.Pool({
    ...connection,
    Client,
    connectionTimeoutMillis: Math.max(timeoutMs, CONNECT_TIMEOUT_MS),
    max: options.poolSize ?? 10,
    idleTimeoutMillis: 30_000,
  })
  // An idle client that loses its server emits 'error' on the pool; the next checkout reconnects.
  pool.on('error', () => {})
  // A checked-out client (a query or transaction under way) that loses its server fails its queries (the
  // request gets a 503) and also emits 'error' on itself, where the pool listens only while it is idle. Without
  // a listener of its own that event would be an uncaught exception and bring the whole process down. The pool
  // drops such a client when it is released (it is no longer queryable).
  pool.on('connect', (client) => {
    client.on('error', () => {})
    dropOnReadTimeout(client)
  })
  const db = new Kysely<Database>({ dialect: new OwnSchemaPostgresDialect({ pool }) })
  const reads =
    options.pipelinedConnections === 0
      ? undefined
      : createPipelinedReads({ driver: pg, config: connection, connections: options.pipelinedConnections ?? 2 })
  // The writes of a turn: one transaction on a connection of their own (pg-group-commit.ts); a member whose group
  // fails runs again alone, in a transaction on the pool.
  const writes =
    options.pipelinedConnections === 0
      ? undefined
      : createPgGroupCommit({
          driver: pg,
          config: connection,
          connections: options.pipelinedConnections ?? 2,
          alone: (work) => db.transaction().execute(work),
        })
  const parsed = new URL(url)
  const close = async () => {
    await writes?.close()
    await reads?.close()
    await db.destroy()
  }
  return {
    db,
    dialect: 'postgres',
    location: `postgres://${parsed.host}${parsed.pathname}`,
    engine: postgresEngine({ db, pool, reads, writes }),
    pool,
    reads,
    close,
  }
}

/**
 * After a query read timeout the connection is of no further use: its answer may never come (a silent
 * partition), and pg would queue every later query of the client behind it. Kysely gives the client back to the
 * pool without the error, so the pool would hand it out again. `end()` marks the client as ending at once (the
 * pool drops a client released in that state) and, its query being still active, destroys the socket. Only
 * destroying the socket is not enough: the pool learns of the close a turn later, and a request arriving in
 * between was handed the dead client and answered 503 at once.
 */
function dropOnReadTimeout(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown
  ;(client as { query: unknown }).query = (...args: unknown[]) => {
    const result = query(...args)
    if (result instanceof Promise) {
      result.catch((error: unknown) => {
        if (error instanceof Error && error.message === 'Query read timeout') client.end().catch(() => {})
      })
    }
    return result
  }
}

export function openDatabase(url: string, options: DatabaseOptions = {}): DatabaseHandle {
  const target = targetOf(url)
  return target.dialect === 'postgres' ? openPostgres(target.url, options) : openSqlite(url, target.path, options)
}
