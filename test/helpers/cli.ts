// Runs the real CLI (`node bin/petstore.js …`, the compiled code in dist/) against a throw-away database.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { settings } from '../../src/kernel/config.js'
import { repoRoot } from './root.js'
import SQLite from 'better-sqlite3'

export const BIN = fileURLToPath(new URL('bin/petstore.js', repoRoot))

type After = { after: (fn: () => void | Promise<void>) => void }

/**
 * The test process's environment without any of our settings, plus `env`: children see only what a test sets. No
 * settings file either (a developer's `.env` in the checkout): PETSTORE_ENV_FILE names an empty one unless `env`
 * names its own.
 */
export function childEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env, PETSTORE_ENV_FILE: '/dev/null' }
  for (const s of Object.values(settings)) delete base[s.env]
  return { ...base, ...env }
}

/** A new empty temporary folder, removed after the test; `file` is a database path inside it (not created). */
export function tempDir(t: After, label = 'petstore-'): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), label))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return { dir, file: join(dir, 'petstore.db') }
}

export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

/** Runs the CLI to completion; a run that hangs or dies from a signal rejects (so it can never pass as a failure). */
export function runCli(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: childEnv(env), timeout: 30_000, encoding: 'utf8', cwd },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') {
          reject(
            new Error(`petstore ${args.join(' ')} did not exit normally (${error.signal ?? error.code}): ${stderr}`),
          )
          return
        }
        resolve({ code: error ? (error.code as number) : 0, stdout, stderr })
      },
    )
  })
}

/**
 * A CLI bound to a fresh database file in a temporary folder: an empty SQLite database, made here and migrated by
 * nobody (commands refuse a path that names no database; each migrates what it opens).
 */
export function cliOn(t: After, env: Record<string, string> = {}) {
  const { dir, file } = tempDir(t, 'petstore-cli-')
  new SQLite(file).close()
  return {
    dir,
    file,
    run: (args: string[], extra: Record<string, string> = {}) => runCli(args, { DATABASE_URL: file, ...env, ...extra }),
    /** Runs a `--json` command that must succeed; returns the one JSON object it printed. */
    async json<T = Record<string, any>>(args: string[], extra: Record<string, string> = {}): Promise<T> {
      const r = await runCli([...args, '--json'], { DATABASE_URL: file, ...env, ...extra })
      assert.equal(r.code, 0, `petstore ${args.join(' ')} failed: ${r.stderr}`)
      assert.equal(r.stderr, '')
      const value = JSON.parse(r.stdout) as unknown
      assert.ok(
        value !== null && typeof value === 'object' && !Array.isArray(value),
        `not one JSON object: ${r.stdout}`,
      )
      return value as T
    },
  }
}

/**
 * Asserts a failed run: exit code ≠ 0, nothing on stdout (or only JSON log lines: `logOnStdout`), exactly one line
 * on stderr, no stack trace. Returns that line.
 */
export function oneLineFailure(r: CliResult, options: { logOnStdout?: boolean } = {}): string {
  assert.notEqual(r.code, 0, `expected a failure, got exit 0 with ${r.stdout}`)
  // `serve` may have logged (JSON lines: the migrations it applied) before it failed; other commands print nothing.
  if (options.logOnStdout) for (const line of r.stdout.split('\n').filter(Boolean)) JSON.parse(line)
  else assert.equal(r.stdout, '')
  assert.ok(!r.stderr.includes('    at '), `stack trace on stderr: ${r.stderr}`)
  assert.match(r.stderr, /^[^\n]+\n$/, `not exactly one line on stderr: ${JSON.stringify(r.stderr)}`)
  return r.stderr.trimEnd()
}

/** Every byte SQLite keeps for the database in `dir` (main file, WAL, shared memory), as latin1 text. */
export function databaseBytes(dir: string): string {
  return readdirSync(dir)
    .map((name) => readFileSync(join(dir, name)).toString('latin1'))
    .join('\n')
}
