// Sign-up, verification, log-in and log-out through HTTP, and the accounts they make.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { client, GOOD_PASSWORD, linkIn, mails, portalHarness, signedUpUser, tokenOf } from '../../helpers/portal.js'

test('sign-up mails a verification link; the verified user logs in, sees the keys page and logs out', async (t) => {
  const h = await portalHarness(t)
  const c = client(h.app)
  const form = await c.get('/portal/signup')
  assert.equal(form.statusCode, 200)
  assert.match(form.headers['content-type'] as string, /^text\/html/)
  const signup = await c.post('/portal/signup', { email: 'Ada@Example.com', password: GOOD_PASSWORD })
  assert.equal(signup.statusCode, 200)
  assert.match(signup.body, /We sent a message to <strong>Ada@example.com<\/strong>/)

  const [mail] = await mails(h, h.outbox)
  assert.ok(mail, 'a verification mail was written')
  assert.match(mail, /^To: Ada@example\.com$/m)
  assert.match(mail, /^Subject: Verify your email address$/m)
  const link = new URL(linkIn(mail, '/portal/verify'))
  assert.equal(link.origin, 'http://portal.test')

  const confirm = await c.get(link.pathname + link.search)
  assert.equal(confirm.statusCode, 200)
  assert.match(confirm.body, /Verify email address<\/button>/)
  const verified = await c.post('/portal/verify', { token: tokenOf(link.href) })
  assert.equal(verified.statusCode, 200)
  assert.match(verified.body, /your address is verified/)

  await c.get('/portal/login')
  const login = await c.post('/portal/login', { email: 'ada@example.com', password: GOOD_PASSWORD })
  assert.equal(login.statusCode, 303)
  assert.equal(login.headers.location, '/portal/keys')
  const keys = await c.get('/portal/keys')
  assert.equal(keys.statusCode, 200)
  assert.match(keys.body, />Create key<\/button>/)
  assert.match(keys.body, /Ada@example\.com/)

  const logout = await c.post('/portal/logout', {})
  assert.equal(logout.statusCode, 303)
  assert.equal((await c.get('/portal/keys')).headers.location, '/portal/login')
})

test('the account made at sign-up is on the free plan and named by the address', async (t) => {
  const h = await portalHarness(t)
  await signedUpUser(h, 'grace@example.com')
  const accounts = await h.services.accounts.listAccounts()
  const account = accounts.find((a) => a.name === 'grace@example.com')
  assert.ok(account)
  assert.equal(account.plan, 'free')
})

test('an unverified user can log in but cannot create keys, and can have the link sent again', async (t) => {
  const h = await portalHarness(t)
  const c = client(h.app)
  await c.get('/portal/signup')
  await c.post('/portal/signup', { email: 'late@example.com', password: GOOD_PASSWORD })
  // The sign-up itself runs after the answer (same timing whatever the address); a person cannot log in faster.
  await h.services.portal!.mailer.settled()
  await c.get('/portal/login')
  assert.equal((await c.post('/portal/login', { email: 'late@example.com', password: GOOD_PASSWORD })).statusCode, 303)
  const keys = await c.get('/portal/keys')
  assert.doesNotMatch(keys.body, />Create key</)
  assert.match(keys.body, /Verify your email address to create keys/)
  const create = await c.post('/portal/keys', { name: 'x', expires: '' })
  assert.equal(create.statusCode, 403)
  assert.equal(
    (
      await h.services.accounts.listApiKeys(
        (await h.services.portal!.repo.findUserByEmail('late@example.com'))!.account_id,
      )
    ).length,
    0,
  )

  // Within a minute of the last link nothing more is sent (no flooding a mailbox); after it, a new link.
  assert.equal((await c.post('/portal/verify/resend', {})).statusCode, 303)
  assert.equal((await mails(h, h.outbox)).filter((m) => m.includes('/portal/verify')).length, 1)
  h.clock.advance(61_000)
  await c.get('/portal/keys')
  const resend = await c.post('/portal/verify/resend', {})
  assert.equal(resend.statusCode, 303)
  const sent = (await mails(h, h.outbox)).filter((m) => m.includes('/portal/verify'))
  assert.equal(sent.length, 2)
  // The link sent again is on the account's record (once: the refused resend within the minute sent nothing).
  const accountId = (await h.services.portal!.repo.findUserByEmail('late@example.com'))!.account_id
  const resent = await h.services.audit.list({ accountId, action: 'account.verification_resent', limit: 50 })
  assert.equal(resent.length, 1)
  assert.deepEqual(
    { kind: resent[0]!.actor.kind, email: resent[0]!.actor.email },
    { kind: 'account', email: 'late@example.com' },
  )
  // The first link stopped working when the second was issued; the second works.
  const first = tokenOf(linkIn(sent[0]!, '/portal/verify'))
  const second = tokenOf(linkIn(sent[1]!, '/portal/verify'))
  assert.equal((await c.post('/portal/verify', { token: first })).statusCode, 400)
  assert.equal((await c.post('/portal/verify', { token: second })).statusCode, 200)
  assert.match((await c.get('/portal/keys')).body, />Create key<\/button>/)
})
