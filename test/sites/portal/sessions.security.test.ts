// Sessions: server-side, a random id in an HttpOnly SameSite=Lax cookie (Secure and __Host- over https),
// idle and absolute expiry, a new id at log-in, ended by log-out and by a password change.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { SESSION_IDLE_MS, SESSION_MAX_MS } from '../../../src/sites/portal/session.js'
import { client, GOOD_PASSWORD, linkIn, mails, portalHarness, signedUpUser, tokenOf } from '../../helpers/portal.js'

const setCookies = (response: { headers: Record<string, unknown> }) =>
  [response.headers['set-cookie'] ?? []].flat() as string[]

test(
  'the session cookie is HttpOnly and SameSite=Lax over http, ' + 'and Secure with the __Host- prefix over https',
  async (t) => {
    const h = await portalHarness(t)
    const c = client(h.app)
    await c.get('/portal/signup')
    await signedUpUser(h, 'cookie@example.com')
    await c.get('/portal/login')
    const login = await c.post('/portal/login', { email: 'cookie@example.com', password: GOOD_PASSWORD })
    const session = setCookies(login).find((s) => s.startsWith('portal_session='))!
    assert.match(session, /; HttpOnly/)
    assert.match(session, /; SameSite=Lax/)
    assert.doesNotMatch(session, /Secure/)
    assert.match(session, /^portal_session=[\w-]{43};/)

    const https = await portalHarness(t, { env: { PETSTORE_PUBLIC_URL: 'https://portal.test' } })
    const s = client(https.app, 'https://portal.test')
    const form = await s.get('/portal/login')
    const pre = setCookies(form).find((x) => x.startsWith('__Host-portal_pre='))!
    assert.match(pre, /; Path=\/; HttpOnly; Secure; SameSite=Lax$/)
  },
)

test('a new session id at log-in; log-out ends it on the server, so a copied cookie stops working', async (t) => {
  const h = await portalHarness(t)
  const first = await signedUpUser(h, 'rotate@example.com')
  const stolen = first.jar.get('portal_session')!
  const second = await signedUpUser(h, 'other@example.com')
  assert.notEqual(second.jar.get('portal_session'), stolen)
  // Logging in again from the same browser replaces the id it had.
  await first.get('/portal/login')
  const keysBefore = await first.get('/portal/keys')
  assert.equal(keysBefore.statusCode, 200)
  const relogin = await first.post('/portal/login', { email: 'rotate@example.com', password: GOOD_PASSWORD })
  assert.equal(relogin.statusCode, 303)
  assert.notEqual(first.jar.get('portal_session'), stolen)
  const copy = await h.app.inject({ url: '/portal/keys', headers: { cookie: `portal_session=${stolen}` } })
  assert.equal(copy.statusCode, 303, 'the replaced id no longer works')

  const current = first.jar.get('portal_session')!
  await first.get('/portal/keys')
  assert.equal((await first.post('/portal/logout', {})).statusCode, 303)
  const after = await h.app.inject({ url: '/portal/keys', headers: { cookie: `portal_session=${current}` } })
  assert.equal(after.statusCode, 303)
  assert.equal(after.headers.location, '/portal/login')
})

test('a session ends after 30 idle minutes, and after 12 hours however busy', async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, 'idle@example.com')
  h.clock.advance(SESSION_IDLE_MS - 1000)
  assert.equal((await c.get('/portal/keys')).statusCode, 200, 'activity keeps it alive')
  h.clock.advance(SESSION_IDLE_MS - 1000)
  assert.equal((await c.get('/portal/keys')).statusCode, 200)
  h.clock.advance(SESSION_IDLE_MS)
  assert.equal((await c.get('/portal/keys')).statusCode, 303, 'idle for 30 minutes')

  const busy = await signedUpUser(h, 'busy@example.com')
  for (let elapsed = 0; elapsed < SESSION_MAX_MS - 20 * 60 * 1000; elapsed += 20 * 60 * 1000) {
    h.clock.advance(20 * 60 * 1000)
    assert.equal((await busy.get('/portal/keys')).statusCode, 200)
  }
  h.clock.advance(20 * 60 * 1000)
  assert.equal((await busy.get('/portal/keys')).statusCode, 303, '12 hours after log-in')
})

test('a password reset ends every session of the user', async (t) => {
  const h = await portalHarness(t)
  const laptop = await signedUpUser(h, 'reset@example.com')
  const phone = client(h.app)
  await phone.get('/portal/login')
  assert.equal(
    (await phone.post('/portal/login', { email: 'reset@example.com', password: GOOD_PASSWORD })).statusCode,
    303,
  )

  const other = client(h.app)
  await other.get('/portal/reset-request')
  await other.post('/portal/reset-request', { email: 'reset@example.com' })
  const link = new URL(
    linkIn((await mails(h, h.outbox)).findLast((m) => m.includes('/portal/reset/'))!, '/portal/reset/'),
  )
  await other.get(link.pathname + link.search)
  const changed = await other.post('/portal/reset', {
    token: tokenOf(link.href),
    password: 'a brand new long password',
  })
  assert.equal(changed.statusCode, 200)
  assert.equal((await laptop.get('/portal/keys')).statusCode, 303)
  assert.equal((await phone.get('/portal/keys')).statusCode, 303)

  const again = client(h.app)
  await again.get('/portal/login')
  assert.equal(
    (await again.post('/portal/login', { email: 'reset@example.com', password: GOOD_PASSWORD })).statusCode,
    400,
    'the old password is gone',
  )
  assert.equal(
    (await again.post('/portal/login', { email: 'reset@example.com', password: 'a brand new long password' }))
      .statusCode,
    303,
  )
})
