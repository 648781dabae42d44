// The operator endpoints behind `accounts usage` and `keys unban` answer only the admin token kept in the
// database: an API key (even of the banned key's own account) can neither read counters nor lift a ban.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadOrCreateSecret } from '../../../src/db/settings.js'
import { ADMIN_TOKEN_SETTING } from '../../../src/modules/limits/admin-channel.js'
import { bearer, errorOf, startHarness } from '../../helpers/harness.js'
import { expect429, limitHeaders, list, spend } from './support.js'

test('without the admin token: 401 on usage and unban, and the ban stays', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T00:00:00Z') })
  const { key, keyId, accountId } = await h.newAccount()
  await spend(h, key, 60)
  for (let i = 0; i < 31; i++) await list(h, key)
  expect429(await list(h, key), 'temporarily_banned')

  const token = await loadOrCreateSecret(h.handle.db, ADMIN_TOKEN_SETTING)
  const wrongToken = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A')
  for (const headers of [
    {},
    bearer(key),
    bearer(wrongToken),
    bearer(token.slice(0, -1)),
    { authorization: `Basic ${token}` },
  ]) {
    const usage = await h.app.inject({ url: `/admin/accounts/${accountId}/usage`, headers })
    assert.equal(usage.statusCode, 401, usage.body)
    errorOf(usage)
    const unban = await h.app.inject({ method: 'POST', url: `/admin/keys/${keyId}/unban`, headers })
    assert.equal(unban.statusCode, 401, unban.body)
  }
  h.clock.set(new Date('2027-01-01T00:01:00Z'))
  expect429(await list(h, key), 'temporarily_banned')

  const lifted = await h.app.inject({ method: 'POST', url: `/admin/keys/${keyId}/unban`, headers: bearer(token) })
  assert.equal(lifted.statusCode, 200, lifted.body)
  assert.deepEqual(lifted.json(), { keyId, wasBanned: true })
  assert.equal((await list(h, key)).statusCode, 200)
})

test('with the admin token: 404 for an unknown account or key', async (t) => {
  const h = await startHarness(t)
  const token = await loadOrCreateSecret(h.handle.db, ADMIN_TOKEN_SETTING)
  const usage = await h.app.inject({ url: '/admin/accounts/nope/usage', headers: bearer(token) })
  assert.equal(usage.statusCode, 404)
  assert.equal(errorOf(usage).code, 'not_found')
  const unban = await h.app.inject({ method: 'POST', url: '/admin/keys/nope/unban', headers: bearer(token) })
  assert.equal(unban.statusCode, 404)
  assert.equal(errorOf(unban).code, 'not_found')
})

test(
  'the admin endpoints carry the per-address limit headers, ' + 'and are refused with 429 once the address is out',
  async (t) => {
    const h = await startHarness(t, { now: new Date('2027-01-01T00:00:30Z') })
    const { keyId, accountId } = await h.newAccount()
    const token = await loadOrCreateSecret(h.handle.db, ADMIN_TOKEN_SETTING)
    const requests = [
      () => h.app.inject({ url: `/admin/accounts/${accountId}/usage`, headers: bearer(token) }),
      () => h.app.inject({ method: 'POST', url: `/admin/keys/${keyId}/unban`, headers: bearer(token) }),
      () => h.app.inject({ url: '/admin/accounts/nope/usage', headers: bearer(token) }),
      () => h.app.inject({ url: `/admin/accounts/${accountId}/usage` }),
    ]
    let expected = 60
    for (const send of requests) {
      const res = await send()
      const headers = limitHeaders(res)
      assert.equal(headers.policy, '"minute";q=60;w=60', res.body)
      assert.equal(headers.remaining, --expected, res.body)
      assert.equal(headers.reset, Date.parse('2027-01-01T00:01:00Z') / 1000)
    }
    for (let i = 0; i < expected; i++) await requests[0]!()
    const refused = await requests[0]!()
    expect429(refused, 'rate_limit_exceeded')
    assert.equal(limitHeaders(refused).remaining, 0)
  },
)
