// A mistyped DATABASE_URL is refused, never a new empty database: the commands that need a database (serve, accounts
// list, keys, migrate status …) stop with one line naming DATABASE_URL and the path, and create nothing, not even the
// folder; `serve` creates only the default path (the quick start's first `npm start`) or with --create. `migrate
// status` opens the database read-only. Listener settings are checked before the database is touched, each failure
// naming its variable.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { once } from 'node:events'
import { join } from 'node:path'
import { test } from 'node:test'
import { oneLineFailure, runCli, tempDir } from '../helpers/cli.js'
import { freePort } from '../helpers/ports.js'

const refusal = (url: string, path = url) =>
  `petstore: DATABASE_URL=${url}: no database at ${path}; check the path, or create it with \`petstore migrate\``

test('a command on a SQLite path that names no database is refused, naming it, and creates nothing', async (t) => {
  const { dir } = tempDir(t, 'petstore-typo-')
  const typo = join(dir, 'dtaa', 'petstore.db')
  for (const args of [
    ['accounts', 'list'],
    ['keys', 'list', '--account', 'acct_x'],
    ['audit', 'list'],
    ['migrate', 'status'],
  ])
    assert.equal(oneLineFailure(await runCli(args, { DATABASE_URL: typo })), refusal(typo), args.join(' '))
  assert.deepEqual(readdirSync(dir), [], 'no file, no folder')
  // The default path too, for commands other than serve: run in an empty folder, nothing appears there.
  assert.equal(
    oneLineFailure(await runCli(['accounts', 'list'], {}, dir)),
    refusal('./data/petstore.db', './data/petstore.db'),
  )
  assert.deepEqual(readdirSync(dir), [])
})

test('accounts create and operators create may start a database; then the others find it', async (t) => {
  const { dir } = tempDir(t, 'petstore-new-')
  const file = join(dir, 'petstore.db')
  const created = await runCli(['accounts', 'create', '--name', 'First', '--json'], { DATABASE_URL: file })
  assert.equal(created.code, 0, created.stderr)
  const listed = await runCli(['accounts', 'list', '--json'], { DATABASE_URL: file })
  assert.equal(listed.code, 0, listed.stderr)
  assert.equal((JSON.parse(listed.stdout) as { accounts: unknown[] }).accounts.length, 1)
})

test('migrate status writes nothing to the database it reads', async (t) => {
  const { dir } = tempDir(t, 'petstore-status-')
  const file = join(dir, 'petstore.db')
  assert.equal((await runCli(['migrate'], { DATABASE_URL: file })).code, 0)
  const digest = () => createHash('sha256').update(readFileSync(file)).digest('hex')
  const before = digest()
  const status = await runCli(['migrate', 'status', '--json'], { DATABASE_URL: file })
  assert.equal(status.code, 0, status.stderr)
  assert.equal((JSON.parse(status.stdout) as { pending: unknown[] }).pending.length, 0)
  assert.equal(digest(), before, 'the database file is unchanged')
})

test('serve refuses a path that names no database (without --create; the default path aside)', async (t) => {
  const { dir } = tempDir(t, 'petstore-serve-')
  const typo = join(dir, 'typo.db')
  const env = { HOST: '127.0.0.1', PORT: String(await freePort()), MESSAGES_PORT: String(await freePort()) }
  const refused = oneLineFailure(await runCli(['serve'], { ...env, DATABASE_URL: typo }), { logOnStdout: true })
  assert.equal(
    refused,
    `petstore: DATABASE_URL=${typo}: no database at ${typo}; check the path, ` +
      'or start a new one with `petstore serve --create` (or `petstore migrate`)',
  )
  assert.ok(!existsSync(typo))
})

test('listener settings are checked before the database: a bad HOST or CONSOLE_HOST, or a taken port', async (t) => {
  const { dir } = tempDir(t, 'petstore-listen-')
  const file = join(dir, 'petstore.db')
  const [port, messagesPort] = [await freePort(), await freePort()]
  const badHost = await runCli(['serve', '--create'], {
    HOST: '256.1.1.1',
    PORT: String(port),
    MESSAGES_PORT: String(messagesPort),
    DATABASE_URL: file,
  })
  assert.equal(
    oneLineFailure(badHost),
    'petstore: HOST=256.1.1.1: not an address or a host name this machine can listen on (ENOTFOUND)',
  )
  const taken = createServer().listen(0, '127.0.0.1')
  await once(taken, 'listening')
  t.after(() => void taken.close())
  const takenPort = (taken.address() as { port: number }).port
  const inUse = await runCli(['serve', '--create'], {
    HOST: '127.0.0.1',
    PORT: String(port),
    MESSAGES_PORT: String(takenPort),
    DATABASE_URL: file,
  })
  assert.equal(
    oneLineFailure(inUse),
    `petstore: MESSAGES_PORT=${takenPort}: the port is in use on 127.0.0.1 ` +
      '(another process listens there) (EADDRINUSE)',
  )
  const consoleEnv = { HOST: '127.0.0.1', PORT: String(port), MESSAGES_PORT: String(messagesPort), DATABASE_URL: file }
  const consoleInUse = await runCli(['serve', '--create'], { ...consoleEnv, CONSOLE_PORT: String(takenPort) })
  assert.equal(
    oneLineFailure(consoleInUse),
    `petstore: CONSOLE_PORT=${takenPort}: the port is in use on 127.0.0.1 ` +
      '(another process listens there) (EADDRINUSE)',
  )
  const consoleHost = await runCli(['serve', '--create'], {
    ...consoleEnv,
    CONSOLE_PORT: String(await freePort()),
    CONSOLE_HOST: '256.1.1.1',
  })
  assert.equal(
    oneLineFailure(consoleHost),
    'petstore: CONSOLE_HOST=256.1.1.1: not an address or a host name this machine can listen on (ENOTFOUND)',
  )
  assert.ok(!existsSync(file), 'no database was made')
})
