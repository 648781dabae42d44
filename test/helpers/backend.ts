// Which backends a test run uses. `npm test` runs the suite on SQLite with the in-memory limiter, then again
// with TEST_BACKEND=postgres: PostgreSQL (TEST_DATABASE_URL) and Redis (TEST_REDIS_URL). Every harness gets a
// PostgreSQL schema of its own for as long as it runs (emptied for it, see schema-pool.ts) and its own Redis key
// prefix, deleted after the test.
import { execFile } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import SQLite from 'better-sqlite3'
import { Kysely, SqliteDialect, sql } from 'kysely'
import pg from 'pg'
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import type { RateLimitStore } from '../../src/modules/limits/rate-limit.store.js'
import { createRedisClient, createRedisStore } from '../../src/modules/limits/redis.store.js'
import { repoRoot } from './root.js'
import { claimPooledSchema } from './schema-pool.js'

type Backend = 'sqlite' | 'postgres'
export const backend: Backend = process.env.TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite'

type After = { after: (fn: () => Promise<void>) => void }

function required(name: string): string {
  const value = process.env[name]
  if (!value) throw new Error(`TEST_BACKEND=postgres needs ${name}`)
  return value
}

/** A PostgreSQL URL whose connections use a fresh schema; the schema is dropped after the test. */
export async function postgresSchema(t: After): Promise<string> {
  const admin = required('TEST_DATABASE_URL')
  const schema = `t_${randomBytes(6).toString('hex')}`
  const client = new pg.Client({ connectionString: admin })
  await client.connect()
  await client.query(`CREATE SCHEMA ${schema}`)
  await client.end()
  dropSchemaAfter(t, admin, schema)
  return schemaUrl(admin, schema).toString()
}

// A migrated schema, cloned. Migrating a fresh schema is ~90 statements, one round trip each: about 1 s of a busy
// machine per test, paid by every test of the PostgreSQL pass. The first test to need one migrates it as usual and
// pg_dump writes out the result (tables, indexes, triggers, functions and the migration tables' rows); every later
// one runs that text, with its own schema's name, as one statement list. The dump is kept in the temporary folder
// under a hash of the migrations' source and the server's version, so the files of a run share it and a changed
// migration makes a new one. Without pg_dump, every schema is migrated.
const run = promisify(execFile)
const migrationSources = new URL('src/db/', repoRoot)
let cloneSql: Promise<{ file: string; text: string | undefined }> | undefined

function migrationsHash(serverVersion: string): string {
  const hash = createHash('sha256').update(serverVersion)
  const dir = new URL('migrations/', migrationSources)
  for (const name of readdirSync(dir).sort()) hash.update(name).update(readFileSync(new URL(name, dir)))
  return hash
    .update(readFileSync(new URL('migrate.ts', migrationSources)))
    .digest('hex')
    .slice(0, 16)
}

let version: Promise<string> | undefined
/** What migrated schemas are made of: the migrations' source and the server's version, as a hash. */
function schemaVersion(admin: string): Promise<string> {
  version ??= (async () => {
    const client = new pg.Client({ connectionString: admin })
    await client.connect()
    try {
      return migrationsHash((await client.query<{ v: string }>('select version() as v')).rows[0]!.v)
    } finally {
      await client.end()
    }
  })()
  return version
}

/** The dump of a migrated schema of `version` (schemaVersion), if one was written; where it goes. */
function cloneSqlOf(version: string): Promise<{ file: string; text: string | undefined }> {
  cloneSql ??= (async () => {
    const file = join(tmpdir(), `petstore-test-schema-${version}.sql`)
    try {
      return { file, text: readFileSync(file, 'utf8') }
    } catch {
      return { file, text: undefined }
    }
  })()
  return cloneSql
}

const SCHEMA_PLACEHOLDER = '__petstore_test_schema__'

/** pg_dump of a migrated schema, with its name replaced by the placeholder (psql's own meta-commands removed). */
async function dumpSchema(admin: string, schema: string, file: string): Promise<void> {
  try {
    const { stdout } = await run(
      'pg_dump',
      ['--dbname', admin, '--schema', schema, '--inserts', '--no-owner', '--no-privileges'],
      { maxBuffer: 64 * 1024 * 1024 },
    )
    const text = stdout
      .split('\n')
      .filter((line) => !line.startsWith('\\'))
      .join('\n')
      .split(schema)
      .join(SCHEMA_PLACEHOLDER)
    const partial = `${file}.${process.pid}`
    writeFileSync(partial, text)
    renameSync(partial, file)
    cloneSql = Promise.resolve({ file, text })
  } catch {
    // No pg_dump (or it failed): the next schemas are migrated too.
  }
}

/**
 * A PostgreSQL URL whose connections use a schema with every migration applied and no rows, for this test alone:
 * one of the pool's (schema-pool.ts), or, when the pool is all taken, a fresh one dropped after the test.
 */
export async function migratedPostgresSchema(t: After): Promise<string> {
  const admin = required('TEST_DATABASE_URL')
  const version = await schemaVersion(admin)
  const pooled = await claimPooledSchema(t, admin, version, (client, schema) =>
    makeMigratedSchema(client, admin, schema),
  )
  if (pooled !== undefined) return schemaUrl(admin, pooled).toString()
  const schema = `t_${randomBytes(6).toString('hex')}`
  const client = new pg.Client({ connectionString: admin })
  await client.connect()
  try {
    await makeMigratedSchema(client, admin, schema)
  } finally {
    await client.end()
  }
  dropSchemaAfter(t, admin, schema)
  return schemaUrl(admin, schema).toString()
}

/** Makes `schema` with every migration applied: cloned from the dump, or migrated (and then dumped). */
async function makeMigratedSchema(client: pg.Client, admin: string, schema: string): Promise<void> {
  const clone = await cloneSqlOf(await schemaVersion(admin))
  if (clone.text !== undefined) {
    await client.query(clone.text.split(SCHEMA_PLACEHOLDER).join(schema))
    return
  }
  await client.query(`CREATE SCHEMA ${schema}`)
  const handle = openDatabase(schemaUrl(admin, schema).toString(), { poolSize: 1 })
  try {
    await migrateToLatest(handle.db)
  } finally {
    await handle.close()
  }
  await dumpSchema(admin, schema, clone.file)
}

/** A key prefix no other test uses. */
export const freshRedisPrefix = () => `petstore-test:${randomBytes(6).toString('hex')}:`

/**
 * A Redis store under a fresh key prefix (or `prefix`, to put a second store, like a second instance, on the
 * same keys); its keys are deleted after the test.
 */
export async function redisStore(t: After, prefix = freshRedisPrefix()): Promise<ReturnType<typeof createRedisStore>> {
  const url = required('TEST_REDIS_URL')
  const store = createRedisStore({ url, prefix, commandTimeoutMs: 2_000 })
  await store.ready()
  deleteRedisKeysAfter(t, url, prefix)
  return store
}

/** Deletes every Redis key under `prefix` after the test. */
export function deleteRedisKeysAfter(t: After, url: string, prefix: string): void {
  t.after(async () => {
    const cleaner = createRedisClient({ url, prefix, commandTimeoutMs: 10_000 })
    try {
      await cleaner.connect()
      const keys = await cleaner.keys(`${prefix}*`)
      if (keys.length > 0) await cleaner.del(...keys)
    } finally {
      // Also when a command failed: an open connection would keep the test process from ever exiting.
      cleaner.disconnect()
    }
  })
}

let sqliteImage: Promise<Buffer> | undefined
/** An in-memory SQLite database with every migration applied, as an image each test's database starts from. */
function migratedSqliteImage(): Promise<Buffer> {
  sqliteImage ??= (async () => {
    const sqlite = new SQLite(':memory:')
    sqlite.defaultSafeIntegers(true)
    sqlite.pragma('foreign_keys = ON')
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) })
    await migrateToLatest(db)
    const image = sqlite.serialize()
    await db.destroy()
    return image
  })()
  return sqliteImage
}

/**
 * A migrated database for one test on the run's backend (`:memory:` SQLite, or a fresh PostgreSQL schema)
 * and, on PostgreSQL runs, a Redis rate-limit store. Closing is the caller's job (the harness's `after`).
 */
export async function testBackend(
  t: After,
): Promise<{ url: string; handle: DatabaseHandle; rateLimitStore?: RateLimitStore; redisUrl?: string }> {
  if (backend === 'sqlite') {
    const handle = openDatabase(':memory:', { sqliteImage: await migratedSqliteImage() })
    return { url: ':memory:', handle }
  }
  const url = await migratedPostgresSchema(t)
  const handle = openDatabase(url, { poolSize: 4 })
  return { url, handle, rateLimitStore: await redisStore(t), redisUrl: required('TEST_REDIS_URL') }
}

/** For tests about SQLite itself (files, query plans): skipped, with the reason, on the PostgreSQL run. */
export function sqliteOnly(t: { skip: (reason: string) => void }, why: string): boolean {
  if (backend === 'sqlite') return false
  t.skip(`SQLite only: ${why}`)
  return true
}

/** Makes every INSERT into `table` fail inside the database (a real trigger); returns the undo. */
export async function refuseInserts(db: Kysely<any>, table: string): Promise<() => Promise<void>> {
  if (backend === 'sqlite') {
    await sql`CREATE TRIGGER refuse_inserts BEFORE INSERT ON ${sql.table(table)}
      BEGIN SELECT RAISE(ABORT, 'refused by test'); END`.execute(db)
    return async () => void (await sql`DROP TRIGGER refuse_inserts`.execute(db))
  }
  await sql`CREATE FUNCTION refuse_inserts() RETURNS trigger LANGUAGE plpgsql
    AS $$ BEGIN RAISE EXCEPTION 'refused by test'; END $$`.execute(db)
  await sql`CREATE TRIGGER refuse_inserts BEFORE INSERT ON ${sql.table(table)}
    FOR EACH ROW EXECUTE FUNCTION refuse_inserts()`.execute(db)
  return async () => {
    await sql`DROP TRIGGER refuse_inserts ON ${sql.table(table)}`.execute(db)
    await sql`DROP FUNCTION refuse_inserts()`.execute(db)
  }
}

/**
 * For tests of PostgreSQL and Redis themselves (several instances, outages): they run once, in the
 * PostgreSQL + Redis pass; in the SQLite pass they are skipped with the reason.
 */
export function postgresOnly(t: { skip: (reason: string) => void }): boolean {
  const reason = postgresOnlyReason()
  if (reason === undefined) return false
  t.skip(reason)
  return true
}

/** Why a PostgreSQL + Redis test does not run in this pass (undefined: it runs), for `test(name, { skip })`. */
export function postgresOnlyReason(): string | undefined {
  if (backend === 'postgres') return undefined
  const configured = process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL
  return configured ? 'runs in the PostgreSQL + Redis pass' : 'needs TEST_DATABASE_URL and TEST_REDIS_URL'
}

/** Drops `schema` (and everything in it) after the test. */
function dropSchemaAfter(t: After, admin: string, schema: string): void {
  t.after(async () => {
    const dropper = new pg.Client({ connectionString: admin })
    await dropper.connect()
    await dropper.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    await dropper.end()
  })
}

/** `admin`'s URL with connections whose search path is `schema`. */
function schemaUrl(admin: string, schema: string): URL {
  const url = new URL(admin)
  url.searchParams.set('options', `-c search_path=${schema}`)
  return url
}
