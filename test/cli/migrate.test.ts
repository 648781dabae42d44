// `petstore migrate`: applies every migration to an empty database, then has nothing left to do.
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { migrations } from '../../src/db/migrate.js'
import { runCli, tempDir } from '../helpers/cli.js'

test('migrate on an empty database applies every migration, then says it is up to date', async (t) => {
  const { dir } = tempDir(t, 'petstore-migrate-')
  const file = join(dir, 'not', 'yet', 'there.db')
  const env = { DATABASE_URL: `sqlite:${file}` }

  const first = await runCli(['migrate'], env)
  assert.equal(first.code, 0, first.stderr)
  assert.equal(first.stderr, '')
  assert.ok(existsSync(file), 'the database file (and its folder) is created')
  for (const name of Object.keys(migrations)) assert.ok(first.stdout.includes(name), `${name} not reported applied: ${first.stdout}`)
  assert.doesNotMatch(first.stdout, /up to date/)

  const second = await runCli(['migrate'], env)
  assert.equal(second.code, 0, second.stderr)
  assert.match(second.stdout, /up to date/)
  for (const name of Object.keys(migrations)) assert.ok(!second.stdout.includes(name), `${name} applied twice: ${second.stdout}`)
})

test('the other commands migrate on their own: accounts list works on a database nobody migrated', async (t) => {
  const { file } = tempDir(t, 'petstore-migrate-')
  const r = await runCli(['accounts', 'list', '--json'], { DATABASE_URL: file })
  assert.equal(r.code, 0, r.stderr)
  assert.deepEqual(JSON.parse(r.stdout), { accounts: [] })
  assert.match((await runCli(['migrate'], { DATABASE_URL: file })).stdout, /up to date/)
})
