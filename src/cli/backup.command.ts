// `petstore backup FILE`: a consistent copy of the SQLite database, also while the service writes to it, through
// SQLite's online backup API (better-sqlite3's `backup`). Every page is copied in one step, so the copy is one
// read transaction's snapshot: WAL lets the service go on writing meanwhile, and a step cut into pieces would
// start again after every write of another process and might never finish under load. The copy is written
// beside FILE, checked (`PRAGMA integrity_check`) and only then moved into place, so FILE is never half a database.
// PostgreSQL has its own tool for this: pg_dump (docs/operators/operating.md, Backups and restores).
import { existsSync, linkSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import SQLite from 'better-sqlite3'
import { Command } from 'commander'
import { loadConfig } from '../kernel/config.js'
import { isPostgresUrl, sqlitePathFromUrl } from '../db/database.js'
import { output, RunError, UsageError } from './run.js'

const ALL_PAGES = 0x7fffffff

const sameFile = (a: string, b: string) => existsSync(a) && existsSync(b) && realpathSync(a) === realpathSync(b)

/** Copies the database at `source` to `tmp` and checks the copy; returns its page count. */
async function copyAndCheck(source: string, tmp: string): Promise<number> {
  const db = new SQLite(source, { fileMustExist: true })
  let pages: number
  try {
    db.pragma('busy_timeout = 5000')
    pages = (await db.backup(tmp, { progress: () => ALL_PAGES })).totalPages
  } finally {
    db.close()
  }
  const copy = new SQLite(tmp, { fileMustExist: true })
  try {
    const result = copy.pragma('integrity_check', { simple: true })
    if (result !== 'ok')
      throw new RunError(`the copy failed its integrity check (${String(result)}); FILE was not written`)
  } finally {
    copy.close()
  }
  return pages
}

export function backupCommand(): Command {
  return new Command('backup')
    .description(
      'write a consistent copy of the SQLite database to FILE, also while the service runs (PostgreSQL: use pg_dump)',
    )
    .argument('<file>', 'where the copy goes')
    .option('--force', 'replace FILE if it exists')
    .option('--json', 'print one JSON object')
    .action(async (file: string, opts: { force?: boolean; json?: boolean }) => {
      const config = loadConfig()
      // Not a usage error: the command is right, this database is not one it can copy.
      if (isPostgresUrl(config.databaseUrl))
        throw new RunError(
          'backup copies a SQLite database; for PostgreSQL use `pg_dump -Fc` (docs/operators/operating.md: Backups ' +
            'and restores)',
        )
      const source = sqlitePathFromUrl(config.databaseUrl)
      if (source === ':memory:') throw new RunError('DATABASE_URL is :memory:; there is no database file to back up')
      if (!existsSync(source)) throw new RunError(`there is no database at ${source}`)
      const target = resolve(file)
      if (sameFile(source, target)) throw new UsageError('FILE is the database itself; name another file')
      if (existsSync(target) && !opts.force) throw new RunError(`${target} exists; pass --force to replace it`)
      if (existsSync(target) && statSync(target).isDirectory())
        throw new UsageError(`${target} is a folder; name a file`)

      const started = performance.now()
      const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.partial`)
      try {
        const pages = await copyAndCheck(source, tmp)
        // Without --force a link, which fails if FILE appeared meanwhile, instead of a rename, which would replace it.
        if (opts.force) renameSync(tmp, target)
        else linkSync(tmp, target)
        const bytes = statSync(target).size
        const durationMs = Math.round(performance.now() - started)
        output(
          !!opts.json,
          { database: source, file: target, pages, bytes, durationMs },
          () => `backed up ${source} to ${target} (${bytes} bytes, ${durationMs} ms)`,
        )
      } catch (error) {
        const code = (error as { code?: string }).code
        if (code === 'EEXIST') throw new RunError(`${target} exists; pass --force to replace it`)
        if (error instanceof TypeError && /directory does not exist/.test(error.message))
          throw new RunError(`cannot write ${target}: its folder does not exist`)
        if (code?.startsWith('E')) throw new RunError(`cannot write ${target}: ${(error as Error).message}`)
        throw error
      } finally {
        rmSync(tmp, { force: true })
        rmSync(`${tmp}-wal`, { force: true })
        rmSync(`${tmp}-shm`, { force: true })
      }
    })
}
