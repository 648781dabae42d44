// Integrators' authenticator app, recovery codes and wrong-code throttle, through the portal's pages (issue 37), on
// the pass's backend: enrolment with a computed code, log-in asking for a code, a code accepted once, a recovery code
// once, the 10th wrong code locking the step (mailed) and the 11th refused, each change mailed and audited.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { totpCode } from '../../../src/modules/sign-in/totp.js'
import { client, GOOD_PASSWORD, linkIn, mails, portalHarness, signedUpUser, tokenOf } from '../../helpers/portal.js'

type H = Awaited<ReturnType<typeof portalHarness>>
const EMAIL = 'ada@example.com'
const subjects = async (h: H) =>
  (await mails(h, h.outbox)).map((m) => /^Subject: (.*)$/m.exec(m)?.[1] ?? '').filter((s) => s !== '')

/** Sets up the app on the signed-in client: its secret and the recovery codes shown. */
async function enrolApp(h: H, c: Awaited<ReturnType<typeof signedUpUser>>) {
  await c.get('/portal/account')
  const start = await c.post('/portal/account/app', {})
  assert.equal(start.statusCode, 200, start.body)
  const secret = /id="totp-secret">([A-Z2-7 ]+)</.exec(start.body)![1]!.replace(/ /g, '')
  assert.match(start.body, /<svg /, 'a QR code drawn in the page')
  const wrong = await c.post('/portal/account/app/confirm', { code: '000000' })
  assert.equal(wrong.statusCode, 400)
  const done = await c.post('/portal/account/app/confirm', { code: totpCode(secret, h.clock.now()) })
  assert.equal(done.statusCode, 200, done.body)
  const codes = [...done.body.matchAll(/<li><code>([0-9a-z]{5}-[0-9a-z]{5})<\/code><\/li>/g)].map((m) => m[1]!)
  assert.equal(codes.length, 10)
  return { secret, codes }
}

async function passwordStep(h: H) {
  const c = client(h.app)
  await c.get('/portal/login')
  const step = await c.post('/portal/login', { email: EMAIL, password: GOOD_PASSWORD })
  assert.equal(step.statusCode, 200, 'a right password leads to the second step, not in')
  assert.match(step.body, /two-factor log-in on/)
  assert.equal((await c.get('/portal/keys')).statusCode, 303, 'not signed in yet')
  return c
}

test('enrolment, then log-in asks for a code; a code works once; a recovery code once; each mailed', async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, EMAIL)
  const { secret, codes } = await enrolApp(h, c)
  assert.ok((await subjects(h)).includes('Authenticator app added'))
  const page = await c.get('/portal/account')
  assert.match(page.body, /Two-factor log-in is on/)
  assert.match(page.body, /10 of 10 unused/)
  assert.ok(!page.body.includes(secret), 'the secret is never shown again')

  h.clock.advance(60_000)
  const first = await passwordStep(h)
  const code = totpCode(secret, h.clock.now())
  const signedIn = await first.post('/portal/login/code', { code })
  assert.equal(signedIn.statusCode, 303)
  assert.equal((await first.get('/portal/keys')).statusCode, 200)

  const replay = await passwordStep(h)
  const refused = await replay.post('/portal/login/code', { code })
  assert.equal(refused.statusCode, 400, 'the same code is refused the second time')
  assert.match(refused.body, /not right \(or was already used\)/)

  const recovery = await replay.post('/portal/login/code', { code: codes[0]!.toUpperCase() })
  assert.equal(recovery.statusCode, 303, 'a recovery code signs in (case and dash do not matter)')
  assert.ok((await subjects(h)).includes('Recovery code used'))
  const again = await passwordStep(h)
  assert.equal(
    (await again.post('/portal/login/code', { code: codes[0]! })).statusCode,
    400,
    'a recovery code works once',
  )

  const entries = await h.services.audit.list({ limit: 50 })
  const actions = entries.map((e) => e.action)
  assert.ok(actions.includes('account.totp_added') && actions.includes('account.recovery_code_used'))
  assert.ok(!JSON.stringify(entries).includes(secret), 'no secret in the audit log')
})

test('the 10th wrong code locks the second step (mailed); the 11th is refused even when right', async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, EMAIL)
  const { secret } = await enrolApp(h, c)
  const step = await passwordStep(h)
  for (let i = 1; i <= 10; i++) {
    const wrong = await step.post('/portal/login/code', { code: String(100000 + i) })
    assert.equal(wrong.statusCode, 400, `wrong code ${i}`)
    if (i === 10) assert.match(wrong.body, /locked until/)
  }
  assert.ok((await subjects(h)).includes('Two-factor log-in locked'))
  const eleventh = await step.post('/portal/login/code', { code: totpCode(secret, h.clock.now()) })
  assert.equal(eleventh.statusCode, 429)
  assert.match(eleventh.body, /locked until/)
  h.clock.advance(15 * 60_000 + 1000)
  const later = await passwordStep(h)
  assert.equal((await later.post('/portal/login/code', { code: totpCode(secret, h.clock.now()) })).statusCode, 303)
})

test('sudo mode: after 15 minutes a key creation asks for a code and keeps the form; not within them', async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, EMAIL)
  const { secret } = await enrolApp(h, c)
  await c.get('/portal/keys/new')
  const within = await c.post('/portal/keys', { name: 'first', expires: '' })
  assert.equal(within.statusCode, 303, 'within 15 minutes of log-in: no confirmation')

  h.clock.advance(16 * 60_000)
  await c.get('/portal/keys/new')
  const asked = await c.post('/portal/keys', { name: 'kept name', expires: '' })
  assert.equal(asked.statusCode, 403)
  assert.match(asked.body, /To <strong>create a key<\/strong>, confirm it is you/)
  assert.ok(!asked.body.includes('name="password"'), 'with a second factor, the password does not confirm')
  const wrong = await c.post('/portal/sudo', { return_to: '/portal/keys', kept: keptOf(asked.body), code: '123456' })
  assert.equal(wrong.statusCode, 400)
  const confirmed = await c.post('/portal/sudo', {
    return_to: '/portal/keys',
    kept: keptOf(wrong.body),
    code: totpCode(secret, h.clock.now()),
  })
  assert.equal(confirmed.statusCode, 200)
  assert.match(confirmed.body, /data-autosubmit/)
  assert.match(confirmed.body, /name="name" value="kept name"/, 'the form survives the confirmation')
  const sent = await c.post('/portal/keys', { name: 'kept name', expires: '' })
  assert.equal(sent.statusCode, 303, 'confirmed: the kept form makes the key')

  const elsewhere = await c.post('/portal/sudo', { return_to: '/portal/logout', kept: '{}', code: '000000' })
  assert.equal(elsewhere.statusCode, 400, 'only a sudo route can be returned to')
})

/** The kept form's JSON as the confirmation page carries it. */
function keptOf(body: string): string {
  const raw = /name="kept" value="([^"]*)"/.exec(body)![1]!
  return raw
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
}

test('two log-ins racing with one code: one wins', async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, EMAIL)
  const { secret } = await enrolApp(h, c)
  h.clock.advance(60_000)
  const [a, b] = [await passwordStep(h), await passwordStep(h)]
  const code = totpCode(secret, h.clock.now())
  const answers = await Promise.all([a.post('/portal/login/code', { code }), b.post('/portal/login/code', { code })])
  assert.deepEqual(answers.map((r) => r.statusCode).sort(), [303, 400])
})

test('an address not verified yet cannot add a second factor (a pre-hijacker must not keep a way in)', async (t) => {
  const h = await portalHarness(t)
  const c = client(h.app)
  await c.get('/portal/signup')
  assert.equal((await c.post('/portal/signup', { email: EMAIL, password: GOOD_PASSWORD })).statusCode, 200)
  // The account is made off the request path (with its mail): wait for it.
  await mails(h, h.outbox)
  await c.get('/portal/login')
  assert.equal((await c.post('/portal/login', { email: EMAIL, password: GOOD_PASSWORD })).statusCode, 303)
  assert.match((await c.get('/portal/account')).body, /Verify your address first/)
  const refused = await c.post('/portal/account/app', {})
  assert.equal(refused.statusCode, 403)
  const options = await c.post('/portal/account/passkeys/options', { purpose: 'register' })
  assert.equal(options.statusCode, 403)
  const user = (await h.services.portal!.repo.findUserByEmail(EMAIL))!
  assert.equal((await h.services.twoFactor.status(user.id)).enabled, false)
})

test('a password reset between the two steps voids the second step', async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, EMAIL)
  const { secret } = await enrolApp(h, c)
  h.clock.advance(60_000)
  const step = await passwordStep(h)
  const owner = client(h.app)
  await owner.get('/portal/reset-request')
  assert.equal((await owner.post('/portal/reset-request', { email: EMAIL })).statusCode, 200)
  const link = new URL(
    linkIn((await mails(h, h.outbox)).findLast((m) => m.includes('/portal/reset/'))!, '/portal/reset/'),
  )
  await owner.get(link.pathname)
  const reset = await owner.post('/portal/reset', { token: tokenOf(link.href), password: 'a brand new long password' })
  assert.equal(reset.statusCode, 200, reset.body)
  const late = await step.post('/portal/login/code', { code: totpCode(secret, h.clock.now()) })
  assert.equal(late.statusCode, 400)
  assert.match(late.body, /expired \(10 minutes\), or its password has changed since/)
})
