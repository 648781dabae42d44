// /portal/keys through HTTP: create (secret once), roll with a grace period, revoke; another account's keys
// are out of reach.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, errorOf } from '../helpers/harness.js'
import { GOOD_PASSWORD, portalHarness, signedUpUser } from '../helpers/portal.js'

const secretOf = (body: string) => /ps_test_[\w-]{43}/.exec(body)![0]

test('create shows the secret once; roll keeps the old key for the grace period; revoke refuses it from the next request', async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, 'keys@example.com')
  await c.get('/portal/keys/new')
  const created = await c.post('/portal/keys', { name: 'deploy bot', expires: '30' })
  assert.equal(created.statusCode, 200)
  const first = secretOf(created.body)
  const list = await c.get('/portal/keys')
  assert.ok(!list.body.includes(first), 'the list never shows the secret')
  assert.match(list.body, /deploy bot/)
  assert.match(list.body, new RegExp(`${first.slice(0, 12)}…`))
  assert.match(list.body, /2027-01-31 00:00 UTC/, 'expires in 30 days')
  assert.equal((await h.app.inject({ url: '/v1/pets', headers: bearer(first) })).statusCode, 200)

  const keyId = /action="\/portal\/keys\/(key_[0-9a-f]+)\/roll"/.exec(list.body)![1]!
  const confirm = await c.get(`/portal/keys/${keyId}/roll`)
  assert.match(confirm.body, /Grace period/)
  const rolled = await c.post(`/portal/keys/${keyId}/roll`, { grace: '3600' })
  assert.equal(rolled.statusCode, 200)
  const second = secretOf(rolled.body)
  assert.match(rolled.body, /keeps working until 2027-01-01 01:00 UTC/)
  assert.equal((await h.app.inject({ url: '/v1/pets', headers: bearer(first) })).statusCode, 200)
  assert.equal((await h.app.inject({ url: '/v1/pets', headers: bearer(second) })).statusCode, 200)
  h.clock.advance(3600 * 1000)
  assert.equal(errorOf(await h.app.inject({ url: '/v1/pets', headers: bearer(first) })).code, 'invalid_api_key')

  // The hour ended the idle session too: log in again.
  await c.get('/portal/login')
  assert.equal((await c.post('/portal/login', { email: 'keys@example.com', password: GOOD_PASSWORD })).statusCode, 303)
  await c.get('/portal/keys')
  const secondId = (await h.app.accounts.listApiKeys((await h.app.portal!.repo.findUserByEmail('keys@example.com'))!.account_id)).find((k) => k.state === 'active')!.id
  assert.match((await c.get(`/portal/keys/${secondId}/revoke`)).body, /Revoke key<\/button>/)
  assert.equal((await h.app.inject({ url: '/v1/pets', headers: bearer(second) })).statusCode, 200, 'nothing changes before the confirmation')
  assert.equal((await c.post(`/portal/keys/${secondId}/revoke`, {})).statusCode, 303)
  const refused = await h.app.inject({ url: '/v1/pets', headers: bearer(second) })
  assert.equal(errorOf(refused).code, 'invalid_api_key')
  assert.match(errorOf(refused).message, /revoked/)
})

test("another account's key cannot be seen, rolled or revoked", async (t) => {
  const h = await portalHarness(t)
  const owner = await signedUpUser(h, 'owner@example.com')
  await owner.get('/portal/keys/new')
  const secret = secretOf((await owner.post('/portal/keys', { name: 'mine', expires: '' })).body)
  const keyId = /\/portal\/keys\/(key_[0-9a-f]+)\/roll/.exec((await owner.get('/portal/keys')).body)![1]!
  const other = await signedUpUser(h, 'other@example.com')
  await other.get('/portal/keys')
  assert.equal((await other.get(`/portal/keys/${keyId}/roll`)).statusCode, 404)
  assert.equal((await other.post(`/portal/keys/${keyId}/roll`, { grace: '0' })).statusCode, 404)
  assert.equal((await other.post(`/portal/keys/${keyId}/revoke`, {})).statusCode, 404)
  assert.equal((await h.app.inject({ url: '/v1/pets', headers: bearer(secret) })).statusCode, 200)
})
