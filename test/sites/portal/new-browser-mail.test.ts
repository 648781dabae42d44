// A sign-in from a browser the account has not been used from is mailed to its user (issue 37's security mail): when,
// which browser, from which address, and what to do. The browser is known by a random cookie, not a fingerprint;
// a cookie of another shape is replaced, and one browser known to one user is new to another; an address not verified
// yet is not mailed. On the pass's backend.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  client,
  GOOD_PASSWORD,
  linkIn,
  mails,
  ORIGIN,
  portalHarness,
  signedUpUser,
  tokenOf,
} from '../../helpers/portal.js'

const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0'
type H = Awaited<ReturnType<typeof portalHarness>>

const signIns = async (h: H, to: string) =>
  (await mails(h, h.outbox)).filter((m) => /^Subject: New sign-in to your Petstore account$/m.test(m) && m.includes(to))

/** Logs in from `c` (logging out first when it is logged in): the same browser, its cookies kept. */
async function logIn(c: ReturnType<typeof client>, email: string, password = GOOD_PASSWORD) {
  if ((await c.get('/portal/login')).statusCode === 303) {
    await c.get('/portal/account')
    assert.equal((await c.post('/portal/logout', {})).statusCode, 303)
    await c.get('/portal/login')
  }
  const response = await c.post('/portal/login', { email, password }, { origin: ORIGIN, 'user-agent': FIREFOX })
  assert.equal(response.statusCode, 303, response.body)
}

test('a new browser is mailed once; the same browser again is not; another user in it is', async (t) => {
  const h = await portalHarness(t)
  const first = await signedUpUser(h, 'ada@example.com')
  const [own] = await signIns(h, 'ada@example.com')
  assert.ok(own, 'the first sign-in is from a browser the account had not been used from')
  const browserCookie = [...first.jar.keys()].find((name) => /portal_browser$/.test(name))
  assert.ok(browserCookie && /^[A-Za-z0-9_-]{43}$/.test(first.jar.get(browserCookie)!), 'a random cookie of ours')

  const other = client(h.app)
  await logIn(other, 'ada@example.com')
  const mailed = await signIns(h, 'ada@example.com')
  assert.equal(mailed.length, 2)
  const text = mailed[1]!.replace(/=\r?\n/g, '')
  assert.match(text, /Browser: Firefox on Windows/)
  assert.match(text, /From: 127\.0\.0\.1/)
  assert.match(text, /\/portal\/account/)
  assert.match(text, /\/portal\/reset-request/)

  await logIn(other, 'ada@example.com')
  assert.equal((await signIns(h, 'ada@example.com')).length, 2, 'a browser signed in from before is not mailed')

  await signedUpUser(h, 'grace@example.com')
  await logIn(other, 'grace@example.com')
  assert.equal((await signIns(h, 'grace@example.com')).length, 2, 'known to Ada, new to Grace')
})

test('a planted cookie not of our shape is replaced, and the sign-in is mailed', async (t) => {
  const h = await portalHarness(t)
  await signedUpUser(h, 'ada@example.com')
  const c = client(h.app)
  c.jar.set('portal_browser', 'x')
  await logIn(c, 'ada@example.com')
  assert.notEqual(c.jar.get('portal_browser'), 'x')
  assert.equal((await signIns(h, 'ada@example.com')).length, 2)
})

test('an address not verified yet is not mailed (it may not be the sign-up’s own)', async (t) => {
  const h = await portalHarness(t)
  const c = client(h.app)
  await c.get('/portal/signup')
  assert.equal(
    (await c.post('/portal/signup', { email: 'unproven@example.com', password: GOOD_PASSWORD })).statusCode,
    200,
  )
  await mails(h, h.outbox) // the sign-up's work runs off the request path: done once its mail is
  await logIn(c, 'unproven@example.com')
  assert.deepEqual(await signIns(h, 'unproven@example.com'), [])
})

test('a password reset forgets every browser: the next log-in from one is mailed again', async (t) => {
  const h = await portalHarness(t)
  await signedUpUser(h, 'ada@example.com')
  const thief = client(h.app)
  await logIn(thief, 'ada@example.com')
  assert.equal((await signIns(h, 'ada@example.com')).length, 2)
  const owner = client(h.app)
  await owner.get('/portal/reset-request')
  assert.equal((await owner.post('/portal/reset-request', { email: 'ada@example.com' })).statusCode, 200)
  const link = new URL(
    linkIn((await mails(h, h.outbox)).findLast((m) => m.includes('/portal/reset/'))!, '/portal/reset/'),
  )
  await owner.get(link.pathname + link.search)
  const reset = await owner.post('/portal/reset', { token: tokenOf(link.href), password: 'a brand new long password' })
  assert.equal(reset.statusCode, 200, reset.body)
  // The thief, who learns the new password too, from the browser the account knew.
  await logIn(thief, 'ada@example.com', 'a brand new long password')
  assert.equal((await signIns(h, 'ada@example.com')).length, 3, 'the same browser, forgotten by the reset')
})
