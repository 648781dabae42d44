// Behind several instances (PostgreSQL, each server remembering key look-ups for a minute): a suspension made on one
// server is refused there on the next request and on another within one second; reactivating, likewise restored.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { keyEnvironment } from '../../../src/modules/accounts/api-keys.js'
import { postgresOnly } from '../../helpers/backend.js'
import { errorOf } from '../../helpers/harness.js'
import { msUntilStatus, twoKeyCachingServers } from '../../helpers/servers.js'
import { testActor } from '../../helpers/actors.js'

test(
  'suspended on one server: 403 there on the next request, ' +
    'and on the other within one second; reactivated likewise',
  async (t) => {
    if (postgresOnly(t)) return
    const { a, b } = await twoKeyCachingServers(t)
    const account = await a.services.accounts.createAccount({ name: 'two servers', plan: 'business', actor: testActor })
    const { key } = await a.services.accounts.createApiKey({
      accountId: account.id,
      environment: keyEnvironment(a.config.environment),
      actor: testActor,
    })
    // Both servers have the key in their cache.
    for (const s of [a, b]) for (let i = 0; i < 2; i++) assert.equal((await s.get(key)).statusCode, 200)

    await a.services.accounts.suspend({ accountId: account.id, reason: 'abuse', actor: testActor })
    const here = await a.get(key)
    assert.equal(here.statusCode, 403, 'the suspending server refuses the next request')
    assert.equal(errorOf(here).code, 'account_suspended')
    const refusedMs = await msUntilStatus(() => b.get(key), 403)
    t.diagnostic(`the other server refused the suspended account's key after ${refusedMs.toFixed(1)} ms`)
    assert.ok(refusedMs < 1_000, `${refusedMs} ms`)
    assert.equal(errorOf(await b.get(key)).code, 'account_suspended')

    await b.services.accounts.reactivate({ accountId: account.id, actor: testActor })
    assert.equal((await b.get(key)).statusCode, 200)
    const restoredMs = await msUntilStatus(() => a.get(key), 200)
    t.diagnostic(`the other server took the key back after ${restoredMs.toFixed(1)} ms`)
    assert.ok(restoredMs < 1_000, `${restoredMs} ms`)
  },
)
