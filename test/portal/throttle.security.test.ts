// Log-in throttling: more than 10 failed log-ins for one address from one client within 15 minutes are
// answered 429 for the rest of the window, the right password included; kept in the database.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { client, GOOD_PASSWORD, portalHarness, signedUpUser } from '../helpers/portal.js'

test('after 10 failures within 15 minutes every attempt is 429 (the right password too) until the window passes', async (t) => {
  const h = await portalHarness(t)
  await signedUpUser(h, 'target@example.com')
  const c = client(h.app)
  await c.get('/portal/login')
  for (let i = 1; i <= 10; i++) {
    h.clock.advance(30_000)
    const failed = await c.post('/portal/login', { email: 'target@example.com', password: `wrong password number ${i}` })
    assert.equal(failed.statusCode, 400, `failure ${i}`)
  }
  const refused = await c.post('/portal/login', { email: 'target@example.com', password: GOOD_PASSWORD })
  assert.equal(refused.statusCode, 429)
  assert.match(refused.headers['content-type'] as string, /^text\/html/)
  assert.match(refused.body, /Too many failed log-ins/)
  // The first failure was 4.5 minutes ago: 10.5 minutes of its window are left.
  assert.equal(refused.headers['retry-after'], String(630))
  assert.equal(refused.headers['set-cookie'], undefined, 'no session was started')

  // Another address, or the same address from another client, is not affected.
  const other = client(h.app)
  await other.get('/portal/login')
  assert.equal((await other.post('/portal/login', { email: 'other@example.com', password: 'some long wrong password' })).statusCode, 400)
  const elsewhere = await h.app.inject({
    method: 'POST',
    url: '/portal/login',
    remoteAddress: '10.0.0.9',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://portal.test', cookie: [...c.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
    payload: new URLSearchParams({ _csrf: c.csrf, email: 'target@example.com', password: GOOD_PASSWORD }).toString(),
  })
  assert.equal(elsewhere.statusCode, 303)

  // Still refused just before the window ends, admitted after it.
  h.clock.advance(630_000 - 1000)
  assert.equal((await c.post('/portal/login', { email: 'target@example.com', password: GOOD_PASSWORD })).statusCode, 429)
  h.clock.advance(1000)
  assert.equal((await c.post('/portal/login', { email: 'target@example.com', password: GOOD_PASSWORD })).statusCode, 303)
})

test('the failures are counted in the database: a second instance on the same database refuses too', async (t) => {
  const h = await portalHarness(t)
  const c = client(h.app)
  await c.get('/portal/login')
  for (let i = 0; i < 10; i++) await c.post('/portal/login', { email: 'nobody@example.com', password: `wrong password number ${i}` })
  // What another instance would find: the same rows, read by a new repository on the same database.
  const { createPortalRepository } = await import('../../src/portal/portal.repository.js')
  const second = createPortalRepository({ db: h.handle.db, clock: h.clock, accounts: h.app.accounts })
  const seen = await second.failuresSince({ email: 'NOBODY@example.com', address: '127.0.0.1', since: h.clock.now() - 15 * 60 * 1000 })
  assert.equal(seen.count, 10)
  assert.equal((await c.post('/portal/login', { email: 'nobody@example.com', password: 'anything long enough' })).statusCode, 429)
})
