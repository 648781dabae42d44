// Two servers on one PostgreSQL database, each remembering key look-ups for a minute (KEY_CACHE_TTL_MS=60000,
// so only the LISTEN/NOTIFY announcement can explain a prompt refusal): a key revoked, rolled, or an account's
// plan changed by one server or by the CLI is refused (or limited anew) by the server that made the change on its
// next request, and by the other within one second. A server whose change channel drops reads every key from the
// database until it listens again. Runs in the PostgreSQL + Redis pass.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createAccountsRepository } from '../../../src/modules/accounts/accounts.repository.js'
import { keyEnvironment } from '../../../src/modules/accounts/api-keys.js'
import { systemClock } from '../../../src/kernel/clock.js'
import { openDatabase } from '../../../src/db/database.js'
import { migrateToLatest } from '../../../src/db/migrate.js'
import { postgresOnly, postgresSchema } from '../../helpers/backend.js'
import { errorOf } from '../../helpers/harness.js'
import { tcpProxy } from '../../helpers/tcp-proxy.js'
import { keyCachingServer, warmKeyCache } from '../../helpers/servers.js'
import { pollUntil } from '../../helpers/within.js'
import { testActor } from '../../helpers/actors.js'
import { removeOwnersOf } from '../../../src/modules/integrators/account-owners.js'

type T = { after: (fn: () => Promise<void>) => void }

/** A server (app and its own services) on `url`. */
async function server(t: T, url: string) {
  return keyCachingServer(t, url)
}

/** Milliseconds until `get(key)` answers 401 with `message`, polling every 5 ms for at most 5 s. */
async function msUntilRefused(
  get: (key: string) => Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }>,
  key: string,
  message: RegExp,
): Promise<number> {
  const started = performance.now()
  for (;;) {
    const response = await get(key)
    if (response.statusCode === 401) {
      assert.match(errorOf(response).message, message)
      return performance.now() - started
    }
    assert.equal(response.statusCode, 200)
    if (performance.now() - started > 5_000) return Infinity
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

async function twoServers(t: T) {
  const url = await postgresSchema(t)
  const setup = openDatabase(url, { poolSize: 1 })
  await migrateToLatest(setup.db)
  t.after(() => setup.close())
  // What the CLI does: its own repository in its own connection, no cache.
  const cli = createAccountsRepository({ db: setup.db, clock: systemClock, removeWithAccount: removeOwnersOf })
  const a = await server(t, url)
  const b = await server(t, url)
  const account = await cli.createAccount({ actor: testActor, name: 'two servers', plan: 'business' })
  const newKey = async () =>
    await cli.createApiKey({
      actor: testActor,
      accountId: account.id,
      environment: keyEnvironment(a.config.environment),
    })
  return { url, cli, a, b, account, newKey }
}

/** Uses `key` on both servers until each answers from its cache. */
async function warm(key: string, ...servers: Awaited<ReturnType<typeof server>>[]) {
  for (const s of servers) await warmKeyCache(s, key)
}

test('revoked on one server: refused there on the next request, and on the other within one second', async (t) => {
  if (postgresOnly(t)) return
  const { a, b, newKey } = await twoServers(t)
  const key = await newKey()
  await warm(key.key, a, b)
  await a.services.accounts.revokeApiKey(key.id, { actor: testActor })
  const here = await a.get(key.key)
  assert.equal(here.statusCode, 401, 'the revoking server refuses the next request')
  assert.equal(errorOf(here).message, 'This API key was revoked.')
  const ms = await msUntilRefused(b.get, key.key, /revoked/)
  t.diagnostic(`the other server refused the revoked key after ${ms.toFixed(1)} ms`)
  assert.ok(ms < 1_000, `the other server refused it after ${ms} ms`)
})

test(
  'rolled (no grace) or revoked by the CLI, ' + 'and a plan changed by the CLI: every server within one second',
  async (t) => {
    if (postgresOnly(t)) return
    const { cli, a, b, account, newKey } = await twoServers(t)
    const rolled = await newKey()
    const revoked = await newKey()
    await warm(rolled.key, a, b)
    await warm(revoked.key, a, b)
    const { created } = await cli.rollApiKey({ actor: testActor, keyId: rolled.id, graceSeconds: 0 })
    await cli.revokeApiKey(revoked.id, { actor: testActor })
    for (const [name, s] of [
      ['a', a],
      ['b', b],
    ] as const) {
      const rolledMs = await msUntilRefused(s.get, rolled.key, /rolled/)
      const revokedMs = await msUntilRefused(s.get, revoked.key, /revoked/)
      t.diagnostic(
        `server ${name}: rolled key refused after ${rolledMs.toFixed(1)} ms, revoked after ${revokedMs.toFixed(1)} ms`,
      )
      assert.ok(rolledMs < 1_000 && revokedMs < 1_000, `server ${name}: ${rolledMs}, ${revokedMs} ms`)
      assert.equal((await s.get(created.key)).statusCode, 200, 'the replacement works')
    }

    const limit = async (s: typeof a) => (await s.get(created.key)).headers['x-ratelimit-limit']
    assert.equal(await limit(b), String(account.quota.perMinute))
    const changed = await cli.setPlan({ actor: testActor, id: account.id, plan: 'free' })
    const seen = await pollUntil(
      'the plan change reaches server b',
      async () => ((await limit(b)) === String(changed.quota.perMinute) ? true : undefined),
      1_000,
      5,
    )
    assert.equal(seen, true)
  },
)

test('a server whose change channel drops reads keys from the database until it listens again', async (t) => {
  if (postgresOnly(t)) return
  const { url, cli, newKey } = await twoServers(t)
  // Server c reaches PostgreSQL through a proxy the test can cut, its listening connection included.
  const admin = new URL(url)
  const proxy = await tcpProxy(t, { host: admin.hostname, port: Number(admin.port || 5432) })
  await proxy.start()
  const viaProxy = new URL(url)
  viaProxy.port = String(proxy.port)
  const c = await server(t, viaProxy.toString())
  const first = await newKey()
  const second = await newKey()
  await warm(first.key, c)
  await warm(second.key, c)

  await proxy.stop()
  await pollUntil(
    'c notices its channel is gone',
    async () => (c.services.keyCache!.listening ? undefined : true),
    5_000,
    5,
  )
  await proxy.start()
  // Both revoked while c cannot hear of it: c must not answer from what it cached before, neither while its
  // channel is down nor once it is back.
  await cli.revokeApiKey(first.id, { actor: testActor })
  await cli.revokeApiKey(second.id, { actor: testActor })
  const during = await c.get(first.key)
  assert.equal(during.statusCode, 401, 'while not listening')
  assert.equal(errorOf(during).message, 'This API key was revoked.')
  await pollUntil('c listens again', async () => (c.services.keyCache!.listening ? true : undefined), 5_000, 10)
  const after = await c.get(second.key)
  assert.equal(after.statusCode, 401, 'listening again')
  assert.equal(errorOf(after).message, 'This API key was revoked.')
  // And it caches again.
  await warm((await newKey()).key, c)
})
