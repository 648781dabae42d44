// A removed member's session on another instance (PostgreSQL + Redis pass only): two apps on one database, as two
// servers behind a load balancer. The member's next request there, right after the owner removed them on the first,
// is refused (the session ended in the database; nothing is cached), while the key they made keeps working.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { postgresOnlyReason } from '../../helpers/backend.js'
import {
  client,
  GOOD_PASSWORD,
  linkIn,
  mails,
  portalHarness,
  secondPortalInstance,
  signedUpUser,
} from '../../helpers/portal.js'

test('a member removed on one instance is refused on the other at their next request; their key still works', {
  skip: postgresOnlyReason(),
}, async (t) => {
  const h = await portalHarness(t)
  const second = await secondPortalInstance(t, h)

  const owner = await signedUpUser(h, 'owner@example.com')
  await owner.get('/portal/members')
  assert.equal(
    (await owner.post('/portal/members/invite', { email: 'dev@example.com', role: 'developer' })).statusCode,
    303,
  )
  const mail = (await mails(h, h.outbox)).findLast((m) => m.includes('/portal/invitations/'))!
  const link = new URL(linkIn(mail, '/portal/invitations/')).pathname
  // The developer signs up from the link on the second instance and works there.
  const dev = client(second.app)
  await dev.get(link)
  assert.equal((await dev.post(`${link}/signup`, { password: GOOD_PASSWORD })).statusCode, 303)
  await dev.get('/portal/keys/new')
  const created = await dev.post('/portal/keys', { name: 'dev key', expires: '' })
  assert.equal(created.statusCode, 303)
  const secret = /ps_test_[\w-]{43}/.exec((await dev.get(created.headers.location as string)).body)?.[0]
  assert.ok(secret, 'the new key is shown once')

  const devId = (await h.services.portal!.repo.findUserByEmail('dev@example.com'))!.id
  assert.equal((await owner.post(`/portal/members/${devId}/remove`, {})).statusCode, 303)
  const removedAt = performance.now()
  const next = await dev.get('/portal/keys')
  const elapsed = performance.now() - removedAt
  assert.equal(next.statusCode, 303, 'the next request on the other instance is sent to log in')
  assert.ok(elapsed < 1000, `within a second (${elapsed.toFixed(0)} ms)`)
  const api = await second.app.inject({ url: '/v1/pets', headers: { authorization: `Bearer ${secret}` } })
  assert.equal(api.statusCode, 200, `the key belongs to the account and keeps working: ${api.body} ${secret}`)
})
