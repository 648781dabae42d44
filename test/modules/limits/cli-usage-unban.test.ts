// `petstore accounts usage ID` and `petstore keys unban KEY_ID`, run as real processes against a listening
// app. The CLI finds the admin token in the database, so the app runs on a database file the CLI also opens.
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { keyEnvironment } from '../../../src/modules/accounts/api-keys.js'
import { appWithServices } from '../../helpers/app-with-services.js'
import { createManualClock } from '../../../src/kernel/clock.js'
import { loadConfig } from '../../../src/kernel/config.js'
import { openDatabase } from '../../../src/db/database.js'
import { migrateToLatest } from '../../../src/db/migrate.js'
import { oneLineFailure, runCli, tempDir } from '../../helpers/cli.js'
import { bearer } from '../../helpers/harness.js'
import { expect429, type Usage } from './support.js'
import { testActor } from '../../helpers/actors.js'

const T0 = Date.parse('2027-01-01T00:00:10Z')

/** The app on a database file, listening on a free port, with a manual clock; one free account with one key. */
async function listeningOnFile(t: TestContext) {
  const { file } = tempDir(t, 'petstore-limits-')
  const config = loadConfig({ LOG_LEVEL: 'silent' }, { databaseUrl: file })
  const handle = openDatabase(file)
  await migrateToLatest(handle.db)
  const clock = createManualClock(T0)
  const { app, services } = await appWithServices({
    config,
    db: handle.db,
    engine: handle.engine,
    clock,
    logger: false,
  })
  t.after(async () => {
    await app.close()
    await services.close()
    await handle.close()
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no TCP address')
  const url = `http://127.0.0.1:${address.port}`
  const account = await services.accounts.createAccount({ actor: testActor, name: 'cli', plan: 'free' })
  const key = await services.accounts.createApiKey({
    actor: testActor,
    accountId: account.id,
    environment: keyEnvironment(config.environment),
  })
  const list = () => app.inject({ url: '/v1/pets', headers: bearer(key.key) })
  const send = async (n: number, status: number) => {
    for (let i = 0; i < n; i++) assert.equal((await list()).statusCode, status, `request ${i + 1}`)
  }
  const cli = (args: string[]) => runCli([...args, '--url', url], { DATABASE_URL: file })
  async function cliJson<T>(args: string[]): Promise<T> {
    const r = await cli([...args, '--json'])
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stderr, '')
    assert.equal(r.stdout.trimEnd().split('\n').length, 1, `one JSON object on one line: ${r.stdout}`)
    return JSON.parse(r.stdout) as T
  }
  return { app, services, clock, accountId: account.id, keyId: key.id, list, send, cli, cliJson }
}

test('accounts usage --json: the minute and day counts of the requests sent, no bans', async (t) => {
  const s = await listeningOnFile(t)
  await s.send(7, 200)
  s.clock.set(T0 + 60_000)
  await s.send(5, 200)
  const usage = await s.cliJson<Usage>(['accounts', 'usage', s.accountId])
  assert.deepEqual(usage, {
    accountId: s.accountId,
    plan: 'free',
    windows: [
      { name: 'minute', limit: 60, used: 5, remaining: 55, resetsAt: '2027-01-01T00:02:00.000Z' },
      { name: 'day', limit: 1000, used: 12, remaining: 988, resetsAt: '2027-01-02T00:00:00.000Z' },
    ],
    bans: [],
  })
  const again = await s.cliJson<Usage>(['accounts', 'usage', s.accountId])
  assert.deepEqual(
    again.windows.map((w) => w.used),
    [5, 12],
    'asking for usage consumes nothing',
  )
})

test('a ban shows in accounts usage; keys unban lifts it; the key is admitted when the quota allows', async (t) => {
  const s = await listeningOnFile(t)
  await s.send(60, 200)
  await s.send(30, 429)
  expect429(await s.list(), 'temporarily_banned')
  const banned = await s.cliJson<Usage>(['accounts', 'usage', s.accountId])
  assert.deepEqual(banned.bans, [{ keyId: s.keyId, until: new Date(T0 + 900_000).toISOString() }])
  assert.deepEqual(
    banned.windows.map((w) => w.used),
    [60, 60],
    'refused requests are not counted',
  )

  const human = await s.cli(['accounts', 'usage', s.accountId])
  assert.equal(human.code, 0, human.stderr)
  assert.match(human.stdout, /minute: 60\/60 used/)
  assert.ok(human.stdout.includes(`key ${s.keyId} banned until ${new Date(T0 + 900_000).toISOString()}`), human.stdout)

  assert.deepEqual(await s.cliJson(['keys', 'unban', s.keyId]), { keyId: s.keyId, wasBanned: true })
  expect429(await s.list(), 'rate_limit_exceeded') // no longer banned, but this minute's quota is still used up
  s.clock.set(T0 + 60_000)
  await s.send(1, 200)
  assert.deepEqual((await s.cliJson<Usage>(['accounts', 'usage', s.accountId])).bans, [])
  assert.deepEqual(await s.cliJson(['keys', 'unban', s.keyId]), { keyId: s.keyId, wasBanned: false })
})

test('keys unban and accounts usage fail on one line for an unknown id or an unreachable service', async (t) => {
  const s = await listeningOnFile(t)
  assert.match(oneLineFailure(await s.cli(['keys', 'unban', 'no-such-key'])), /no-such-key/)
  assert.match(oneLineFailure(await s.cli(['accounts', 'usage', 'no-such-account'])), /no-such-account/)
  const unreachable = await runCli(['accounts', 'usage', s.accountId, '--url', 'http://127.0.0.1:9'], {
    DATABASE_URL: s.services.config.databaseUrl,
  })
  assert.match(oneLineFailure(unreachable), /cannot reach the service/)
})
