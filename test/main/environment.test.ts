// A database remembers the environment it belongs to (recorded at its first migration or use): a server or CLI
// command started on it with another PETSTORE_ENV is refused with one line naming both. On the run's backend.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { openDatabase } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import { backend, postgresSchema } from '../helpers/backend.js'
import { oneLineFailure, runCli, tempDir } from '../helpers/cli.js'
import { freePort } from '../helpers/serve.js'

type After = Parameters<typeof tempDir>[0]

/** A DATABASE_URL nobody has used yet: a file in a temporary folder, or a fresh PostgreSQL schema. */
async function freshDatabaseUrl(t: After): Promise<string> {
  return backend === 'postgres' ? postgresSchema(t) : join(tempDir(t, 'petstore-env-').dir, 'petstore.db')
}

async function serveEnv(url: string, environment: string): Promise<Record<string, string>> {
  const port = await freePort()
  let messagesPort = await freePort()
  while (messagesPort === port) messagesPort = await freePort()
  return {
    HOST: '127.0.0.1',
    PORT: String(port),
    MESSAGES_PORT: String(messagesPort),
    DATABASE_URL: url,
    PETSTORE_ENV: environment,
  }
}

function assertNamesBoth(line: string, recorded: string, asked: string): void {
  assert.match(line, /PETSTORE_ENV/)
  assert.ok(line.includes(`PETSTORE_ENV=${asked}`) && line.includes(`the ${recorded} environment`), line)
}

test('a production database refuses a CLI command run with another PETSTORE_ENV, and nothing is written', async (t) => {
  const url = await freshDatabaseUrl(t)
  assert.equal((await runCli(['migrate'], { DATABASE_URL: url, PETSTORE_ENV: 'production' })).code, 0)
  for (const other of ['development', 'staging']) {
    const line = oneLineFailure(
      await runCli(['accounts', 'create', '--name', 'Oops', '--json'], { DATABASE_URL: url, PETSTORE_ENV: other }),
    )
    assertNamesBoth(line, 'production', other)
  }
  // Unset PETSTORE_ENV is development: the forgotten variable is exactly the case.
  assertNamesBoth(
    oneLineFailure(await runCli(['accounts', 'list', '--json'], { DATABASE_URL: url })),
    'production',
    'development',
  )
  const listed = await runCli(['accounts', 'list', '--json'], { DATABASE_URL: url, PETSTORE_ENV: 'production' })
  assert.equal(listed.code, 0, listed.stderr)
  assert.deepEqual(JSON.parse(listed.stdout), { accounts: [] })
})

test('serve with another PETSTORE_ENV than the database was first used with exits ≠ 0 with one line', async (t) => {
  const url = await freshDatabaseUrl(t)
  const created = await runCli(['accounts', 'create', '--name', 'Shelter', '--json'], {
    DATABASE_URL: url,
    PETSTORE_ENV: 'staging',
  })
  assert.equal(created.code, 0, created.stderr)
  const line = oneLineFailure(await runCli(['serve'], await serveEnv(url, 'production')))
  assertNamesBoth(line, 'staging', 'production')
})

test('a database migrated before the record existed gets it on its next use, then keeps it', async (t) => {
  const url = await freshDatabaseUrl(t)
  const handle = openDatabase(url)
  await migrateToLatest(handle.db)
  assert.equal(
    await handle.db.selectFrom('settings').select('value').where('name', '=', 'environment').executeTakeFirst(),
    undefined,
  )
  await handle.close()

  assert.equal((await runCli(['accounts', 'list', '--json'], { DATABASE_URL: url, PETSTORE_ENV: 'staging' })).code, 0)
  assert.equal((await runCli(['migrate'], { DATABASE_URL: url, PETSTORE_ENV: 'staging' })).code, 0)
  assertNamesBoth(
    oneLineFailure(await runCli(['migrate'], { DATABASE_URL: url, PETSTORE_ENV: 'development' })),
    'staging',
    'development',
  )
})
