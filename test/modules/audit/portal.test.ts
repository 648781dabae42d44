// What an integrator changes in the portal is on record with the integrator as actor (account, address, client
// address): sign-up, verification, keys created, rolled and revoked, password changes (settings and reset), a new
// address, deletion; never a password or a key's secret. A suspended account's owner still logs in, is told why on
// the keys page, and the portal creates no key for it.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { GOOD_PASSWORD, client, linkIn, mails, portalHarness, signedUpUser, type Client } from '../../helpers/portal.js'
import { testActor } from '../../helpers/actors.js'

const NEW_PASSWORD = 'another long passphrase 42'
const RESET_PASSWORD = 'yet another passphrase 77'
const text = (body: string) => body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ')

/** The secret a new key's page shows once. */
function secretIn(body: string): string {
  const secret = /class="secret">(ps_test_[^<]+)</.exec(body)?.[1]
  assert.ok(secret && secret.length > 30, 'the page shows the secret')
  return secret
}

async function createKey(c: Client, name: string): Promise<{ id: string; secret: string }> {
  await c.get('/portal/keys/new')
  const made = await c.post('/portal/keys', { name, expires: '' })
  assert.equal(made.statusCode, 303, made.body)
  const shown = await c.get(made.headers.location as string)
  const secret = secretIn(shown.body)
  return { id: /\/portal\/keys\/([^/]+)\/created/.exec(made.headers.location as string)![1]!, secret }
}

test('the portal records each change with the integrator as actor, and no password or secret', async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, 'owner@example.com')
  const user = (await h.services.portal!.repo.findUserByEmail('owner@example.com'))!
  const accountId = user.account_id

  const first = await createKey(c, 'ci')
  await c.get(`/portal/keys/${first.id}/roll`)
  const rolled = await c.post(`/portal/keys/${first.id}/roll`, { grace: '3600' })
  assert.equal(rolled.statusCode, 303)
  const second = secretIn((await c.get(rolled.headers.location as string)).body)
  await c.get(`/portal/keys/${first.id}/revoke`)
  assert.equal((await c.post(`/portal/keys/${first.id}/revoke`, {})).statusCode, 303)

  await c.get('/portal/account')
  assert.equal(
    (await c.post('/portal/account/password', { current_password: GOOD_PASSWORD, new_password: NEW_PASSWORD }))
      .statusCode,
    303,
  )
  await c.get('/portal/account')
  assert.equal(
    (await c.post('/portal/account/email', { new_email: 'moved@example.com', password: NEW_PASSWORD })).statusCode,
    200,
  )
  await h.services.portal!.mailer.settled()
  const change = new URL(
    linkIn((await mails(h, h.outbox)).findLast((m) => m.includes('/portal/account/email/'))!, '/portal/account/email/'),
  )
  await c.get(change.pathname)
  assert.equal((await c.post(change.pathname, {})).statusCode, 200)

  const stranger = client(h.app)
  await stranger.get('/portal/reset-request')
  await stranger.post('/portal/reset-request', { email: 'moved@example.com' })
  await h.services.portal!.mailer.settled()
  const reset = new URL(
    linkIn((await mails(h, h.outbox)).findLast((m) => m.includes('/portal/reset/'))!, '/portal/reset/'),
  )
  await stranger.get(reset.pathname + reset.search)
  const token = reset.pathname
    .split('/')
    .at(-1)!
    .replace(/^reset$/, reset.searchParams.get('token') ?? '')
  assert.equal((await stranger.post('/portal/reset', { token, password: RESET_PASSWORD })).statusCode, 200)

  const entries = await h.services.audit.list({ accountId, limit: 100 })
  assert.deepEqual(entries.map((e) => e.action).reverse(), [
    'account.created',
    'account.verified',
    'key.created',
    'key.rolled',
    'key.revoked',
    'account.password_changed',
    'account.email_changed',
    'account.password_changed',
  ])
  for (const e of entries) {
    assert.equal(e.actor.kind, 'account')
    assert.equal(e.actor.id, accountId)
    assert.ok(e.actor.address, `${e.action} has the client address`)
    assert.equal(e.accountId, accountId)
  }
  assert.equal(entries.at(-1)!.actor.email, 'owner@example.com')
  const emailChange = entries.find((e) => e.action === 'account.email_changed')!
  assert.deepEqual(emailChange.changes, {
    before: { email: 'owner@example.com' },
    after: { email: 'moved@example.com' },
  })
  assert.deepEqual(
    entries.filter((e) => e.action === 'account.password_changed').map((e) => e.changes),
    [{ via: 'reset' }, { via: 'settings' }],
  )

  await c.get('/portal/login')
  await c.post('/portal/login', { email: 'moved@example.com', password: RESET_PASSWORD })
  await c.get('/portal/account')
  assert.equal((await c.post('/portal/account/delete', { password: RESET_PASSWORD })).statusCode, 200)
  assert.equal((await h.services.audit.list({ accountId, limit: 1 }))[0]!.action, 'account.deleted')

  const stored = JSON.stringify(await h.handle.db.selectFrom('audit_events').selectAll().execute(), (_, v: unknown) =>
    typeof v === 'bigint' ? String(v) : v,
  )
  for (const [i, secret] of [
    GOOD_PASSWORD,
    NEW_PASSWORD,
    RESET_PASSWORD,
    first.secret,
    second,
    user.password_hash,
  ].entries())
    assert.ok(
      !stored.includes(secret),
      `no password, hash or secret in the audit log (${i}: ${secret.length} characters)`,
    )
})

test(
  'a suspended account: its owner logs in and is told why; ' + 'no key is created (form not shown, POST refused 403)',
  async (t) => {
    const h = await portalHarness(t)
    const c = await signedUpUser(h, 'paused@example.com')
    const accountId = (await h.services.portal!.repo.findUserByEmail('paused@example.com'))!.account_id
    const key = await createKey(c, 'before')
    await h.services.accounts.suspend({ accountId, reason: 'payment overdue', actor: testActor })

    const again = client(h.app)
    await again.get('/portal/login')
    assert.equal(
      (await again.post('/portal/login', { email: 'paused@example.com', password: GOOD_PASSWORD })).statusCode,
      303,
      'the owner can still log in',
    )
    const page = await again.get('/portal/keys')
    assert.equal(page.statusCode, 200)
    assert.match(text(page.body), /Your account is suspended/)
    assert.match(text(page.body), /payment overdue/)
    assert.match(page.body, /role="alert"/)
    assert.doesNotMatch(page.body, /action="\/portal\/keys\/new"/, 'no Create key')
    assert.doesNotMatch(page.body, new RegExp(`/portal/keys/${key.id}/roll`), 'no Roll (a roll makes a key)')
    assert.match(page.body, new RegExp(`/portal/keys/${key.id}/revoke`), 'revoking stays possible')

    const form = await again.get('/portal/keys/new')
    assert.equal(form.statusCode, 403)
    assert.match(text(form.body), /suspended/)
    const before = (await h.services.accounts.listApiKeys(accountId)).length
    const refused = await again.post('/portal/keys', { name: 'sneaky', expires: '' })
    assert.equal(refused.statusCode, 403)
    assert.match(text(refused.body), /Your account is suspended.*payment overdue/)
    const roll = await again.post(`/portal/keys/${key.id}/roll`, { grace: '0' })
    assert.equal(roll.statusCode, 403)
    assert.equal((await h.services.accounts.listApiKeys(accountId)).length, before, 'nothing created')
    assert.equal((await h.services.audit.list({ accountId, action: 'key.created', limit: 10 })).length, 1)

    await h.services.accounts.reactivate({ accountId, actor: testActor })
    const back = await again.get('/portal/keys')
    assert.doesNotMatch(text(back.body), /suspended/)
    assert.match(back.body, /action="\/portal\/keys\/new"/)
  },
)
