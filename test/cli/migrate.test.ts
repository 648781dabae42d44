// `petstore migrate`: applies every migration to an empty database, a line for each with its time, then has nothing
// left to do; `petstore migrate status` lists applied (with when) and pending ones; `serve` logs each it applies.
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { migrations } from '../../src/db/migrate.js'
import { postgresOnly, postgresSchema } from '../helpers/backend.js'
import { runCli, tempDir } from '../helpers/cli.js'
import { freePort, spawnServe } from '../helpers/serve.js'
import { untilReady } from './until-ready.js'
import SQLite from 'better-sqlite3'

test('migrate on an empty database applies every migration, then says it is up to date', async (t) => {
  const { dir } = tempDir(t, 'petstore-migrate-')
  const file = join(dir, 'not', 'yet', 'there.db')
  const env = { DATABASE_URL: `sqlite:${file}` }

  const first = await runCli(['migrate'], env)
  assert.equal(first.code, 0, first.stderr)
  assert.equal(first.stderr, '')
  assert.ok(existsSync(file), 'the database file (and its folder) is created')
  // One readable line per migration, in order, with how long it took.
  assert.deepEqual(
    first.stdout
      .trimEnd()
      .split('\n')
      .map((line) => /^applied (\S+) \(\d+ ms\)$/.exec(line)?.[1]),
    Object.keys(migrations),
    first.stdout,
  )
  assert.doesNotMatch(first.stdout, /up to date/)

  const second = await runCli(['migrate'], env)
  assert.equal(second.code, 0, second.stderr)
  assert.match(second.stdout, /up to date/)
  for (const name of Object.keys(migrations))
    assert.ok(!second.stdout.includes(name), `${name} applied twice: ${second.stdout}`)
})

test('the other commands migrate on their own: accounts list works on a database nobody migrated', async (t) => {
  const { file } = tempDir(t, 'petstore-migrate-')
  new SQLite(file).close() // a database file, empty: nobody migrated it
  const r = await runCli(['accounts', 'list', '--json'], { DATABASE_URL: file })
  assert.equal(r.code, 0, r.stderr)
  assert.deepEqual(JSON.parse(r.stdout), { accounts: [] })
  assert.match((await runCli(['migrate'], { DATABASE_URL: file })).stdout, /up to date/)
})

test(
  'migrate status lists pending migrations before migrate ' + 'and applied ones, with when, after; exit 0 both times',
  async (t) => {
    const { file } = tempDir(t, 'petstore-migrate-')
    new SQLite(file).close() // a database file, empty: nobody migrated it
    const names = Object.keys(migrations)
    const before = await runCli(['migrate', 'status', '--json'], { DATABASE_URL: file })
    assert.equal(before.code, 0, before.stderr)
    assert.deepEqual(JSON.parse(before.stdout), { applied: [], pending: names.map((name) => ({ name })) })
    const human = await runCli(['migrate', 'status'], { DATABASE_URL: file })
    assert.equal(human.code, 0, human.stderr)
    assert.match(human.stdout, new RegExp(`^pending  ${names[0]}$`, 'm'))
    assert.match(human.stdout, new RegExp(`0 applied, ${names.length} pending`))

    const started = Date.now()
    assert.equal((await runCli(['migrate'], { DATABASE_URL: file })).code, 0)
    const after = await runCli(['migrate', 'status', '--json'], { DATABASE_URL: file })
    assert.equal(after.code, 0, after.stderr)
    const status = JSON.parse(after.stdout) as { applied: { name: string; appliedAt: string }[]; pending: unknown[] }
    assert.deepEqual(status.pending, [])
    assert.deepEqual(
      status.applied.map((m) => m.name),
      names,
    )
    for (const m of status.applied) {
      const at = Date.parse(m.appliedAt)
      assert.ok(at >= started - 1000 && at <= Date.now(), `${m.name} applied at ${m.appliedAt}`)
    }
    assert.match(
      (await runCli(['migrate', 'status'], { DATABASE_URL: file })).stdout,
      new RegExp(`^applied  ${names[0]}  \\d{4}-\\d{2}-\\d{2}T`, 'm'),
    )
  },
)

test(
  'serve logs each migration it applies as a JSON line ' + 'with its name and duration, and none on the next start',
  async (t) => {
    const { file } = tempDir(t, 'petstore-migrate-')
    const applied = (stdout: string) =>
      stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg: string; migration?: string; durationMs?: number })
        .filter((entry) => entry.msg === 'applied migration')
    const start = async () => {
      const port = await freePort()
      const server = spawnServe(t, {
        HOST: '127.0.0.1',
        PORT: String(port),
        MESSAGES_PORT: String(await freePort()),
        DATABASE_URL: file,
      })
      await untilReady(port, server.exited)
      assert.deepEqual(await server.stop(), { code: 0, signal: null })
      return applied(server.stdout())
    }

    const first = await start()
    assert.deepEqual(
      first.map((l) => l.migration),
      Object.keys(migrations),
    )
    for (const l of first) assert.ok(Number.isInteger(l.durationMs) && l.durationMs! >= 0, JSON.stringify(l))
    assert.deepEqual(await start(), [])
  },
)

test(
  'migrate status and migrate on PostgreSQL: ' + "pending, then applied with when, in the connection's schema",
  async (t) => {
    if (postgresOnly(t)) return
    const env = { DATABASE_URL: await postgresSchema(t) }
    const names = Object.keys(migrations)
    const before = await runCli(['migrate', 'status', '--json'], env)
    assert.equal(before.code, 0, before.stderr)
    assert.deepEqual(JSON.parse(before.stdout), { applied: [], pending: names.map((name) => ({ name })) })
    const migrate = await runCli(['migrate'], env)
    assert.equal(migrate.code, 0, migrate.stderr)
    assert.equal(migrate.stdout.trimEnd().split('\n').length, names.length, migrate.stdout)
    const after = JSON.parse((await runCli(['migrate', 'status', '--json'], env)).stdout) as {
      applied: { name: string; appliedAt: string }[]
      pending: unknown[]
    }
    assert.deepEqual(after.pending, [])
    assert.deepEqual(
      after.applied.map((m) => m.name),
      names,
    )
    for (const m of after.applied) assert.ok(!Number.isNaN(Date.parse(m.appliedAt)), m.appliedAt)
    assert.match(
      (await runCli(['migrate', 'status'], env)).stdout,
      new RegExp(`^${names.length} applied, 0 pending`, 'm'),
    )
  },
)
