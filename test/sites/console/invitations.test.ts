// PORTAL_SIGNUP=closed: the portal opens no account (its sign-up page says so, a posted form is refused and mails
// nothing), and an admin makes accounts in the console: the owner gets a link to choose a password, which verifies
// the address. Also: nobody can take such an account over by signing up for its address while sign-up is open.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { consoleHarness, signedInOperator } from '../../helpers/console.js'
import { client, GOOD_PASSWORD, linkIn, mails, tokenOf } from '../../helpers/portal.js'

const OWNER = 'owner@customer.example'

async function ownerRow(h: Awaited<ReturnType<typeof consoleHarness>>, email: string) {
  return h.handle.db
    .selectFrom('portal_users')
    .innerJoin('accounts', 'accounts.id', 'portal_users.account_id')
    .select(['portal_users.id', 'portal_users.verified_at', 'accounts.id as account_id', 'accounts.plan'])
    .where('email_key', '=', email)
    .executeTakeFirst()
}

/** Chooses a password through the mailed link, as the owner's browser does; the response of the form. */
async function choosePassword(h: Awaited<ReturnType<typeof consoleHarness>>, link: string, password: string) {
  const owner = client(h.app)
  const form = await owner.get(new URL(link).pathname)
  assert.equal(form.statusCode, 200, form.body)
  return owner.post('/portal/reset', { token: tokenOf(link), password })
}

test('with sign-up closed the portal makes no account, and says whom to ask', async (t) => {
  const h = await consoleHarness(t, { env: { PORTAL_SIGNUP: 'closed' } })
  const visitor = client(h.app)
  const page = await visitor.get('/portal/signup')
  assert.equal(page.statusCode, 200)
  assert.match(page.body, /Sign-up is closed/)
  assert.match(page.body, /the people who run this service make them/)
  assert.doesNotMatch(page.body, /action="\/portal\/signup"/, 'no sign-up form')
  assert.doesNotMatch(page.body, /href="\/portal\/signup"/, 'no Sign up link in the navigation')
  const login = await visitor.get('/portal/login')
  assert.doesNotMatch(login.body, /Create an account/)

  const posted = await visitor.post('/portal/signup', { email: OWNER, password: GOOD_PASSWORD })
  assert.equal(posted.statusCode, 403)
  assert.match(posted.body, /Sign-up is closed/)
  assert.equal(await ownerRow(h, OWNER), undefined, 'no user was made')
  assert.deepEqual(await mails(h, h.outbox), [], 'nothing was mailed')
})

test('an admin makes an account; its owner chooses a password through the mailed link and logs in', async (t) => {
  const h = await consoleHarness(t, { env: { PORTAL_SIGNUP: 'closed' } })
  const support = await signedInOperator(h, { role: 'support' })
  assert.equal((await support.get('/console/accounts/new')).statusCode, 403)
  assert.doesNotMatch((await support.get('/console/accounts')).body, /New account/)
  const admin = await signedInOperator(h, { role: 'admin' })
  assert.match((await admin.get('/console/accounts')).body, /href="\/console\/accounts\/new">New account</)

  const form = await admin.get('/console/accounts/new')
  assert.equal(form.statusCode, 200)
  for (const [fields, why] of [
    [{ email: 'not an address', plan: 'free' }, /address/i],
    [{ email: OWNER, plan: 'enterprise' }, /Choose one of the plans listed/],
    [{ email: OWNER, plan: 'gold' }, /Choose one of the plans listed/],
  ] as const) {
    const refused = await admin.post('/console/accounts/new', fields)
    assert.equal(refused.statusCode, 400, refused.body)
    assert.match(refused.body, why)
  }
  assert.equal(await ownerRow(h, OWNER), undefined, 'a refused form makes nothing')

  const made = await admin.post('/console/accounts/new', { email: OWNER, plan: 'pro' })
  assert.equal(made.statusCode, 303, made.body)
  const row = await ownerRow(h, OWNER)
  assert.ok(row)
  assert.equal(made.headers.location, `/console/accounts/${row.account_id}?done=invited`)
  assert.equal(row.plan, 'pro')
  assert.equal(row.verified_at, null)
  const accountPage = await admin.get(made.headers.location as string)
  assert.match(accountPage.body, /A link to choose a password \(valid 7 days\) was mailed/)
  assert.match(accountPage.body, /no password chosen yet/)
  assert.match(accountPage.body, /Send the password link again/)
  assert.doesNotMatch(accountPage.body, /Resend verification/)

  const again = await admin.post('/console/accounts/new', { email: 'OWNER@customer.example', plan: 'free' })
  assert.equal(again.statusCode, 400)
  assert.match(again.body, new RegExp(`has an account already: <a href="/console/accounts/${row.account_id}"`))

  const [mail, ...rest] = await mails(h, h.outbox)
  assert.equal(rest.length, 0)
  assert.match(mail!, /Subject: Your Petstore account: choose a password/)
  const link = linkIn(mail!, '/portal/reset/')
  assert.ok(link.startsWith(`${h.config.publicUrl}/portal/reset/`), link)

  // Before the owner chooses one, no password opens the account (not even an empty-looking marker).
  const early = client(h.app)
  await early.get('/portal/login')
  for (const password of ['unset', GOOD_PASSWORD]) {
    assert.equal((await early.post('/portal/login', { email: OWNER, password })).statusCode, 400)
  }

  const chosen = await choosePassword(h, link, GOOD_PASSWORD)
  assert.equal(chosen.statusCode, 200, chosen.body)
  assert.ok((await ownerRow(h, OWNER))?.verified_at, 'choosing the password verified the address')
  assert.equal((await client(h.app).get(new URL(link).pathname)).statusCode, 400, 'the link works once')
  const owner = client(h.app)
  await owner.get('/portal/login')
  const login = await owner.post('/portal/login', { email: OWNER, password: GOOD_PASSWORD })
  assert.equal(login.statusCode, 303, login.body)

  const actions = await h.services.audit.list({ accountId: row.account_id, limit: 10 })
  const byOperator = actions.filter((e) => e.actor.kind === 'operator').map((e) => e.action)
  assert.deepEqual(byOperator.sort(), ['account.created', 'account.invitation_sent'])
  assert.doesNotMatch(JSON.stringify(actions), new RegExp(tokenOf(link)), 'the token is never recorded')
  const after = await admin.get(`/console/accounts/${row.account_id}`)
  assert.doesNotMatch(after.body, /Send the password link again/)
})

test('a lost link is sent again by support; the earlier one stops working', async (t) => {
  const h = await consoleHarness(t, { env: { PORTAL_SIGNUP: 'closed' } })
  const admin = await signedInOperator(h, { role: 'admin' })
  assert.equal((await admin.post('/console/accounts/new', { email: OWNER, plan: 'free' })).statusCode, 303)
  const row = (await ownerRow(h, OWNER))!
  const first = linkIn((await mails(h, h.outbox))[0]!, '/portal/reset/')

  const support = await signedInOperator(h, { role: 'support' })
  const base = `/console/accounts/${row.account_id}/invitation`
  assert.equal((await support.get(base)).statusCode, 200)
  const soon = await support.post(base, {})
  assert.equal(soon.headers.location, `/console/accounts/${row.account_id}?done=verification-recent`)
  assert.equal((await mails(h, h.outbox)).length, 1, 'at most one link a minute')

  h.clock.advance(61_000)
  const sent = await support.post(base, {})
  assert.equal(sent.headers.location, `/console/accounts/${row.account_id}?done=invitation-again`)
  const all = await mails(h, h.outbox)
  assert.equal(all.length, 2)
  const second = linkIn(all[1]!, '/portal/reset/')
  assert.notEqual(second, first)
  assert.equal((await client(h.app).get(new URL(first).pathname)).statusCode, 400, 'the first link is dead')
  assert.equal((await choosePassword(h, second, GOOD_PASSWORD)).statusCode, 200)
  const done = await support.get(base)
  assert.equal(done.statusCode, 400, 'nothing left to send once the password is chosen')
})

test('with sign-up open, signing up for an address an operator made an account for takes nothing over', async (t) => {
  const h = await consoleHarness(t)
  const admin = await signedInOperator(h, { role: 'admin' })
  assert.equal((await admin.post('/console/accounts/new', { email: OWNER, plan: 'business' })).statusCode, 303)
  const invitation = linkIn((await mails(h, h.outbox))[0]!, '/portal/reset/')

  const attacker = client(h.app)
  await attacker.get('/portal/signup')
  const attackerPassword = 'attacker chosen passphrase 42'
  assert.equal((await attacker.post('/portal/signup', { email: OWNER, password: attackerPassword })).statusCode, 200)
  const all = await mails(h, h.outbox)
  assert.equal(all.length, 2)
  assert.doesNotMatch(all[1]!, /\/portal\/verify\//, 'the owner is told the address has an account, nothing to verify')
  await attacker.get('/portal/login')
  assert.equal((await attacker.post('/portal/login', { email: OWNER, password: attackerPassword })).statusCode, 400)

  assert.equal((await choosePassword(h, invitation, GOOD_PASSWORD)).statusCode, 200, 'the invitation still works')
  assert.equal((await ownerRow(h, OWNER))?.plan, 'business')
})
