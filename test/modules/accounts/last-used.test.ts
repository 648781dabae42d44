// Last used: minute precision, at most one UPDATE per key per minute, never on the response path.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { backend } from '../../helpers/backend.js'
import { bearer, startHarness, type Harness } from '../../helpers/harness.js'
import { recordQueries } from '../../helpers/query-log.js'
import { pollUntil } from '../../helpers/within.js'
import { testActor } from '../../helpers/actors.js'

const T0 = Date.parse('2027-01-01T00:00:00Z')

const lastUsed = async (h: Harness, keyId: string) => (await h.services.accounts.getApiKey(keyId)).lastUsedAt

async function call(h: Harness, key: string, times = 1): Promise<void> {
  for (let i = 0; i < times; i++)
    assert.equal((await h.app.inject({ url: '/v1/pets', headers: bearer(key) })).statusCode, 200)
}

test('last used is written with minute precision, once per key per minute however many requests', async (t) => {
  const log = recordQueries(backend)
  const h = await startHarness(t, { now: T0 + 12_345, plugins: [log.plugin] })
  const a = await h.newAccount()
  const b = await h.newAccount()
  assert.equal(await lastUsed(h, a.keyId), null, 'a new key was never used')
  const updates = () => log.queries.filter((q) => /^update "api_keys" set "last_used_at"/.test(q.sql)).length

  // Wait on the query log, not the row: another connection can read the committed row before this process has
  // handled the UPDATE's own answer (and so before the log has it); CI saw that under load.
  const written = (keyId: string) =>
    log.queries.some((q) => /^update "api_keys" set "last_used_at"/.test(q.sql) && q.parameters.includes(keyId))
  await call(h, a.key, 5)
  await pollUntil('the first use written', async () => written(a.keyId) || undefined)
  assert.equal(await lastUsed(h, a.keyId), '2027-01-01T00:00:00.000Z', 'the start of the minute')
  assert.equal(updates(), 1, 'five requests in one minute: one UPDATE')

  h.clock.advance(40_000) // 00:00:52, same minute
  await call(h, a.key, 3)
  await call(h, b.key)
  await pollUntil('b written', async () => written(b.keyId) || undefined)
  assert.notEqual(await lastUsed(h, b.keyId), null)
  assert.equal(updates(), 2, 'same minute: no more UPDATE for a; one for b')

  h.clock.advance(10_000) // 00:01:02
  await call(h, a.key, 3)
  await pollUntil('the next minute written', async () => (updates() === 3 ? true : undefined))
  assert.equal(await lastUsed(h, a.keyId), '2027-01-01T00:01:00.000Z')
  assert.equal(updates(), 3)
  assert.equal(await lastUsed(h, b.keyId), '2027-01-01T00:00:00.000Z', 'b unchanged')
})

test('a refused key (revoked) is not marked as used', async (t) => {
  const log = recordQueries(backend)
  const h = await startHarness(t, { now: T0, plugins: [log.plugin] })
  const a = await h.newAccount()
  const b = await h.newAccount()
  await h.services.accounts.revokeApiKey(a.keyId, { actor: testActor })
  assert.equal((await h.app.inject({ url: '/v1/pets', headers: bearer(a.key) })).statusCode, 401)
  // Not a fixed wait for a write that should not come: a working key's use afterwards, written, is the event.
  // Writes of last use are sent in the order of the requests (the key is marked during authentication, before the
  // answer), so once b's is answered a write for a, had there been one, was sent before it.
  const written = (keyId: string) =>
    log.queries.some((q) => /^update "api_keys" set "last_used_at"/.test(q.sql) && q.parameters.includes(keyId))
  assert.equal((await h.app.inject({ url: '/v1/pets', headers: bearer(b.key) })).statusCode, 200)
  await pollUntil('the use of the working key written', async () => written(b.keyId) || undefined, 10_000, 5)
  assert.equal(written(a.keyId), false, 'an UPDATE of last use for the revoked key')
  assert.equal(await lastUsed(h, a.keyId), null)
})
