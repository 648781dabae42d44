// Narrowing a key's scopes reaches every instance within a second (issue 26): two servers on one PostgreSQL
// database, each remembering key look-ups for a minute (KEY_CACHE_TTL_MS=60000, test/helpers/servers.ts), so only
// the change's LISTEN/NOTIFY announcement can explain a prompt refusal. Narrowed by one server (its portal) or by
// the CLI (its own repository, no cache): refused 403 insufficient_scope by the server that made the change on its
// next request, and by the other within one second. Runs in the PostgreSQL + Redis pass.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createAccountsRepository } from '../../../src/modules/accounts/accounts.repository.js'
import { systemClock } from '../../../src/kernel/clock.js'
import { openDatabase } from '../../../src/db/database.js'
import { postgresOnly } from '../../helpers/backend.js'
import { testActor } from '../../helpers/actors.js'
import { errorOf } from '../../helpers/harness.js'
import { msUntilStatus, twoKeyCachingServers, warmKeyCache } from '../../helpers/servers.js'
import { removeOwnersOf } from '../../../src/modules/integrators/account-owners.js'

type Server = Awaited<ReturnType<typeof twoKeyCachingServers>>['a']

const insufficient = (response: { statusCode: number; headers: Record<string, unknown>; body: string }) => {
  assert.equal(errorOf(response).code, 'insufficient_scope')
  assert.equal(response.headers['www-authenticate'], 'Bearer error="insufficient_scope", scope="pets:read"')
}

async function setUp(t: { after: (fn: () => Promise<void>) => void }) {
  const { a, b } = await twoKeyCachingServers(t)
  const account = await a.services.accounts.createAccount({ actor: testActor, name: 'narrowed', plan: 'business' })
  const key = await a.services.accounts.createApiKey({
    actor: testActor,
    accountId: account.id,
    environment: 'test',
    scopes: ['pets:read', 'orders:read'],
  })
  // Both servers answer the key from their caches, scopes included, before the change.
  for (const server of [a, b]) await warmKeyCache(server, key.key)
  return { a, b, key }
}

async function reachesOther(t: { diagnostic: (m: string) => void }, other: Server, key: string, who: string) {
  const ms = await msUntilStatus(() => other.get(key), 403, { check: insufficient })
  t.diagnostic(`narrowed by ${who}: the other server refused GET /v1/pets after ${ms.toFixed(1)} ms`)
  assert.ok(ms < 1_000, `the other server still allowed it after ${ms} ms`)
}

test('narrowed on one server: refused there on the next request, and on the other within one second', async (t) => {
  if (postgresOnly(t)) return
  const { a, b, key } = await setUp(t)
  await a.services.accounts.restrictApiKeyScopes({ keyId: key.id, scopes: ['orders:read'], actor: testActor })
  insufficient(await a.get(key.key))
  await reachesOther(t, b, key.key, 'a server')
  // What the key kept still works on both.
  for (const server of [a, b])
    assert.equal(
      (await server.app.inject({ url: '/v1/store/orders', headers: { authorization: `Bearer ${key.key}` } }))
        .statusCode,
      200,
    )
})

test('narrowed by the CLI (its own connection, no cache): every server within one second', async (t) => {
  if (postgresOnly(t)) return
  const { a, b, key } = await setUp(t)
  const handle = openDatabase(a.config.databaseUrl, { poolSize: 1 })
  t.after(() => handle.close())
  const cli = createAccountsRepository({ db: handle.db, clock: systemClock, removeWithAccount: removeOwnersOf })
  await cli.restrictApiKeyScopes({ keyId: key.id, scopes: ['orders:read'], actor: testActor })
  await reachesOther(t, a, key.key, 'the CLI')
  await reachesOther(t, b, key.key, 'the CLI')
})
