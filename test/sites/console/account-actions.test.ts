// The account actions through HTTP as an admin: each opens its confirmation page, changes what the API does from the
// next request on, comes back to the account page with a notice, and leaves its audit entry with the operator's
// email. Bad input gets its page back with a 400 saying what is wrong, and changes nothing.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { testActor } from '../../helpers/actors.js'
import { consoleHarness, signedInOperator } from '../../helpers/console.js'
import { errorOf } from '../../helpers/harness.js'
import { client, linkIn, tokenOf, type Client } from '../../helpers/portal.js'
import { api, banKey, entriesOf, locationOf, unverifiedSignUp } from './account-support.js'

const T0 = Date.parse('2027-03-01T10:00:00Z')

/** Opens the action's confirmation page, then sends its form; the 303's target page, with its notice. */
async function confirm(operator: Client, accountId: string, action: string, fields: Record<string, string> = {}) {
  const path = `/console/accounts/${accountId}/${action}`
  const step = await operator.get(path)
  assert.equal(step.statusCode, 200, step.body)
  assert.ok(step.body.includes(`<form method="post" action="${path}"`), 'the confirmation step posts the action')
  const location = locationOf(await operator.post(path, fields))
  assert.match(location, new RegExp(`^/console/accounts/${accountId}\\?done=`))
  return operator.get(location)
}

const notice = (body: string) => /<div class="notice notice-success" role="status">([^<]*)<\/div>/.exec(body)?.[1]

test(
  'Change plan: the next API response carries the new limit; ' + 'the audit entry has before, after and the operator',
  async (t) => {
    const h = await consoleHarness(t, { now: T0 })
    const { accountId, key } = await h.newAccount()
    assert.equal((await api(h, key)).headers['x-ratelimit-limit'], '60')
    const admin = await signedInOperator(h, { role: 'admin' })

    const page = await confirm(admin, accountId, 'plan', { plan: 'pro', per_minute: '', per_day: '' })
    assert.match(notice(page.body)!, /The plan was changed/)
    assert.match(page.body, /pro: 300 per minute, 10,000 per day/)
    assert.equal((await api(h, key)).headers['x-ratelimit-limit'], '300')

    await confirm(admin, accountId, 'plan', { plan: 'enterprise', per_minute: '7', per_day: '5000' })
    assert.equal((await api(h, key)).headers['x-ratelimit-limit'], '7')
    const [enterprise, pro] = await entriesOf(h, accountId, 'account.plan_changed')
    assert.equal(pro!.actor.email, admin.operator.email)
    assert.equal(pro!.actor.kind, 'operator')
    assert.deepEqual(pro!.changes, {
      before: { plan: 'free', perMinute: 60, perDay: 1000 },
      after: { plan: 'pro', perMinute: 300, perDay: 10000 },
    })
    assert.deepEqual(enterprise!.changes!.after, { plan: 'enterprise', perMinute: 7, perDay: 5000 })

    // The same plan again changes nothing and records nothing.
    assert.match(
      notice((await confirm(admin, accountId, 'plan', { plan: 'enterprise', per_minute: '7', per_day: '5000' })).body)!,
      /Nothing changed/,
    )
    assert.equal((await entriesOf(h, accountId, 'account.plan_changed')).length, 2)
  },
)

test('Suspend with a reason: 403 account_suspended on the API; Reactivate: 200 again; both audited', async (t) => {
  const h = await consoleHarness(t, { now: T0 })
  const { accountId, key } = await h.newAccount()
  const admin = await signedInOperator(h, { role: 'admin' })

  const step = await admin.get(`/console/accounts/${accountId}/suspend`)
  assert.match(step.body, /<label for="reason">Reason<\/label>/)
  assert.match(step.body, /<input id="reason" name="reason" type="text" required/)
  const page = await confirm(admin, accountId, 'suspend', { reason: '  Card fraud, ticket 42  ' })
  assert.match(notice(page.body)!, /suspended/)
  assert.match(page.body, /Reason: Card fraud, ticket 42/)
  // Its keys say so: none of them works while the account is suspended.
  assert.match(page.body, /<span class="state-suspended">suspended<\/span>/)
  assert.doesNotMatch(page.body, /state-active/)
  const refused = await api(h, key)
  assert.equal(refused.statusCode, 403)
  assert.equal(errorOf(refused).code, 'account_suspended')
  const [suspended] = await entriesOf(h, accountId, 'account.suspended')
  assert.equal(suspended!.actor.email, admin.operator.email)
  assert.deepEqual(suspended!.changes, { reason: 'Card fraud, ticket 42' })

  const back = await confirm(admin, accountId, 'reactivate')
  assert.match(notice(back.body)!, /reactivated/)
  assert.match(back.body, /<span class="state-active">active<\/span>/)
  assert.equal((await api(h, key)).statusCode, 200)
  const [reactivated] = await entriesOf(h, accountId, 'account.reactivated')
  assert.equal(reactivated!.actor.email, admin.operator.email)
})

test("Revoke: the key is refused with 401 from its next request; the account's other key still works", async (t) => {
  const h = await consoleHarness(t, { now: T0 })
  const { accountId, keyId, key } = await h.newAccount()
  const other = await h.services.accounts.createApiKey({
    actor: testActor,
    accountId,
    environment: 'test',
    name: 'other',
  })
  const admin = await signedInOperator(h, { role: 'admin' })

  const page = await confirm(admin, accountId, `keys/${keyId}/revoke`)
  assert.match(notice(page.body)!, /The key was revoked/)
  assert.equal((await api(h, key)).statusCode, 401)
  assert.equal((await api(h, other.key)).statusCode, 200)
  const [revoked] = await entriesOf(h, accountId, 'key.revoked')
  assert.equal(revoked!.actor.email, admin.operator.email)
  assert.deepEqual(revoked!.target, { kind: 'key', id: keyId })
})

test(
  'Lift ban: a key banned for too many refusals is admitted again; ' +
    'the entry is recorded only when there was a ban',
  async (t) => {
    const h = await consoleHarness(t, { now: T0 })
    const { accountId, keyId, key } = await h.newAccount()
    await banKey(h, key)
    h.clock.advance(60_000) // a new minute: only the ban refuses the key now
    assert.equal((await api(h, key)).statusCode, 429)
    const admin = await signedInOperator(h, { role: 'admin' })

    const step = await admin.get(`/console/accounts/${accountId}/keys/${keyId}/unban`)
    assert.match(step.body, /banned until 2027-03-01 10:15 UTC/)
    const page = await confirm(admin, accountId, `keys/${keyId}/unban`)
    assert.match(notice(page.body)!, /The ban was lifted/)
    assert.match(page.body, /No key is banned now/)
    assert.equal((await api(h, key)).statusCode, 200)
    const [lifted] = await entriesOf(h, accountId, 'ban.lifted')
    assert.equal(lifted!.actor.email, admin.operator.email)
    assert.deepEqual(lifted!.target, { kind: 'key', id: keyId })

    assert.match(notice((await confirm(admin, accountId, `keys/${keyId}/unban`)).body)!, /was not banned/)
    assert.equal((await entriesOf(h, accountId, 'ban.lifted')).length, 1)
  },
)

test(
  'Resend verification: a fresh link is mailed (the older one ' +
    'stops working) and verifies the address; at most one a minute',
  async (t) => {
    const h = await consoleHarness(t, { now: T0 })
    const { accountId, mails } = await unverifiedSignUp(h, 'late@example.com')
    h.clock.advance(5 * 60_000)
    const admin = await signedInOperator(h, { role: 'admin' })

    const step = await admin.get(`/console/accounts/${accountId}/verification`)
    assert.match(step.body, /mailed to <strong>late@example.com<\/strong>/)
    const page = await confirm(admin, accountId, 'verification')
    assert.match(notice(page.body)!, /A fresh verification link was mailed/)
    const [first, second] = await mails()
    assert.ok(second, 'a second verification mail')
    assert.match(second, /Subject: Verify your email address/)
    const [resent] = await entriesOf(h, accountId, 'account.verification_resent')
    assert.equal(resent!.actor.email, admin.operator.email)
    assert.ok(!JSON.stringify(resent).includes(tokenOf(linkIn(second, '/portal/verify/'))), 'the token is not recorded')

    // Within the minute: nothing is sent, and the operator is told so.
    assert.match(notice((await confirm(admin, accountId, 'verification')).body)!, /less than a minute ago/)
    assert.equal((await mails()).length, 2)
    assert.equal((await entriesOf(h, accountId, 'account.verification_resent')).length, 1)

    // The new link verifies the address; the first no longer works.
    const owner = client(h.app)
    await owner.get('/portal/login')
    assert.equal(
      (await owner.post('/portal/verify', { token: tokenOf(linkIn(first!, '/portal/verify/')) })).statusCode,
      400,
    )
    assert.equal(
      (await owner.post('/portal/verify', { token: tokenOf(linkIn(second, '/portal/verify/')) })).statusCode,
      200,
    )
    const verified = await admin.get(`/console/accounts/${accountId}`)
    assert.match(verified.body, /late@example.com \(verified on 2027-03-01 10:05 UTC\)/)
    assert.ok(!verified.body.includes('>Resend verification<'))
    assert.equal((await admin.post(`/console/accounts/${accountId}/verification`, {})).statusCode, 400)
  },
)

test(
  'Delete account with a reason: its keys get 401, ' + 'its page says deleted; the reason is in the audit entry',
  async (t) => {
    const h = await consoleHarness(t, { now: T0 })
    const { accountId, mails } = await unverifiedSignUp(h, 'gone@example.com')
    const key = await h.services.accounts.createApiKey({ actor: testActor, accountId, environment: 'test' })
    const admin = await signedInOperator(h, { role: 'admin' })

    const step = await admin.get(`/console/accounts/${accountId}/delete`)
    assert.match(step.body, /cannot be undone/)
    const page = await confirm(admin, accountId, 'delete', { reason: 'Owner asked by phone' })
    assert.match(notice(page.body)!, /The account was deleted/)
    assert.match(page.body, /<strong>Deleted<\/strong>/)
    assert.equal((await api(h, key.key)).statusCode, 401)
    assert.equal(
      await h.handle.db.selectFrom('portal_users').select('id').where('account_id', '=', accountId).executeTakeFirst(),
      undefined,
    )
    const [deleted] = await entriesOf(h, accountId, 'account.deleted')
    assert.equal(deleted!.actor.email, admin.operator.email)
    assert.deepEqual(deleted!.changes, { reason: 'Owner asked by phone' })
    assert.equal((await mails()).length, 1)
    // Nothing more can be done to it.
    const again = await admin.post(`/console/accounts/${accountId}/suspend`, { reason: 'x' })
    assert.equal(again.statusCode, 400)
    assert.match(again.body, /was deleted/)
  },
)

test('bad input: a 400 page saying what is wrong, and nothing changed', async (t) => {
  const h = await consoleHarness(t, { now: T0 })
  const { accountId, keyId, key } = await h.newAccount()
  const stranger = await h.newAccount()
  const admin = await signedInOperator(h, { role: 'admin' })
  await admin.get(`/console/accounts/${accountId}`)
  const post = (action: string, fields: Record<string, string>) =>
    admin.post(`/console/accounts/${accountId}/${action}`, fields)
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ['plan', { plan: 'platinum' }, /Choose a plan: free, pro, business, enterprise/],
    ['plan', {}, /Choose a plan/],
    ['plan', { plan: 'enterprise', per_minute: '10', per_day: '' }, /The enterprise plan needs its own quotas/],
    ['plan', { plan: 'enterprise', per_minute: '0', per_day: '100' }, /whole number from 1/],
    ['plan', { plan: 'enterprise', per_minute: '1.5', per_day: '100' }, /whole number from 1/],
    ['plan', { plan: 'enterprise', per_minute: '500', per_day: '100' }, /cannot be more than requests per day/],
    ['suspend', { reason: '   ' }, /Give a reason/],
    ['suspend', {}, /Give a reason/],
    ['suspend', { reason: 'x'.repeat(501) }, /at most 500 characters/],
    ['delete', { reason: '' }, /Give a reason/],
    ['keys/key_0123abcd/revoke', {}, /has no key with the id key_0123abcd/],
    [`keys/${stranger.keyId}/revoke`, {}, new RegExp(`has no key with the id ${stranger.keyId}`)],
    [`keys/${stranger.keyId}/unban`, {}, /has no key with the id/],
  ]
  for (const [action, fields, message] of cases) {
    const response = await post(action, fields)
    assert.equal(response.statusCode, 400, `${action} ${JSON.stringify(fields)}: ${response.body}`)
    assert.match(response.headers['content-type'] as string, /^text\/html/)
    assert.match(response.body, message, `${action} ${JSON.stringify(fields)}`)
  }
  // What was typed comes back, escaped.
  const typed = await post('plan', { plan: 'enterprise', per_minute: '<b>', per_day: '' })
  assert.match(typed.body, /value="&lt;b&gt;"/)
  // Nothing changed: plan, state, keys, the account itself, and no audit entry but the test's own.
  assert.equal((await api(h, key)).headers['x-ratelimit-limit'], '60')
  assert.equal((await api(h, stranger.key)).statusCode, 200)
  const account = await h.services.accounts.getAccount(accountId)
  assert.equal(account.suspendedAt, null)
  assert.equal(account.deletedAt, null)
  assert.equal((await h.services.accounts.getApiKey(keyId)).state, 'active')
  for (const id of [accountId, stranger.accountId]) {
    const entries = await h.services.audit.list({ accountId: id, limit: 10 })
    assert.deepEqual(
      entries.map((e) => `${e.actor.kind} ${e.action}`),
      ['cli key.created', 'cli account.created'],
    )
  }
  // An unknown account: the 404 page.
  const missing = await admin.post('/console/accounts/acct_missing/suspend', { reason: 'x' })
  assert.equal(missing.statusCode, 404)
  assert.match(missing.body, /No such account/)
})
