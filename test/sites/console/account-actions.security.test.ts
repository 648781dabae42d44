// The account actions as an attacker would try them: a support operator sees no admin control, and its replay of an
// admin's POST (with its own valid CSRF token, or the admin's) is refused with 403 and changes nothing; a POST
// without the token, with a foreign Origin, or from a signed-out or logged-out browser is refused too.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { consoleHarness, signedInOperator, type ConsoleHarness } from '../../helpers/console.js'
import { client, ORIGIN } from '../../helpers/portal.js'
import { testActor } from '../../helpers/actors.js'
import { api, banKey, buttonsOf, entriesOf, locationOf, unverifiedSignUp } from './account-support.js'

const T0 = Date.parse('2027-03-01T10:00:00Z')

/** An unverified portal account with a banned key, and a second (suspended) account; every admin POST against them. */
async function scene(h: ConsoleHarness) {
  const { accountId, mails } = await unverifiedSignUp(h, 'target@example.com')
  const key = await h.services.accounts.createApiKey({ actor: testActor, accountId, environment: 'test', name: 'main' })
  await banKey(h, key.key)
  h.clock.advance(60_000) // a new minute: only the ban refuses the key now
  const suspended = await h.newAccount({ name: 'suspended' })
  await h.services.accounts.suspend({ accountId: suspended.accountId, reason: 'test', actor: testActor })
  const adminPosts: Array<[string, Record<string, string>]> = [
    [`/console/accounts/${accountId}/plan`, { plan: 'business' }],
    [`/console/accounts/${accountId}/suspend`, { reason: 'replayed' }],
    [`/console/accounts/${suspended.accountId}/reactivate`, {}],
    [`/console/accounts/${accountId}/keys/${key.id}/revoke`, {}],
    [`/console/accounts/${accountId}/delete`, { reason: 'replayed' }],
    // Refused before the account is even looked up: no way to learn which ids exist.
    ['/console/accounts/acct_unknown/delete', { reason: 'replayed' }],
  ]
  const supportPosts: Array<[string, Record<string, string>]> = [
    [`/console/accounts/${accountId}/keys/${key.id}/unban`, {}],
    [`/console/accounts/${accountId}/verification`, {}],
  ]
  /** Asserts nothing was changed: plan, states, key, ban, mail, audit entries beyond the set-up's. */
  async function unchanged() {
    const account = await h.services.accounts.getAccount(accountId)
    assert.equal(account.plan, 'free')
    assert.equal(account.suspendedAt, null)
    assert.equal(account.deletedAt, null)
    assert.equal((await h.services.accounts.getApiKey(key.id)).state, 'active')
    assert.notEqual((await h.services.accounts.getAccount(suspended.accountId)).suspendedAt, null)
    const banned = await api(h, key.key)
    assert.equal(banned.statusCode, 429, 'still banned')
    assert.equal(JSON.parse(banned.body).code, 'temporarily_banned')
    assert.equal((await mails()).length, 1, 'no verification mail sent')
    for (const id of [accountId, suspended.accountId]) {
      const operatorEntries = (await h.services.audit.list({ accountId: id, limit: 50 })).filter(
        (e) => e.actor.kind === 'operator',
      )
      assert.deepEqual(operatorEntries, [])
    }
  }
  return { accountId, key, adminPosts, supportPosts, unchanged }
}

test(
  'support: no admin control on the page; ' +
    'admin GETs and POSTs (with its valid CSRF token) are 403 and change nothing',
  async (t) => {
    const h = await consoleHarness(t, { now: T0 })
    const s = await scene(h)
    const support = await signedInOperator(h, { role: 'support' })

    const page = await support.get(`/console/accounts/${s.accountId}`)
    assert.equal(page.statusCode, 200)
    assert.deepEqual(
      buttonsOf(page.body).filter((b) => b !== 'Log out'),
      ['Resend verification', 'Lift ban'],
    )
    for (const path of ['/plan"', '/suspend"', '/reactivate"', '/revoke"', '/delete"'])
      assert.ok(!page.body.includes(path), `no ${path} control`)

    for (const [path] of s.adminPosts) {
      const step = await support.get(path)
      assert.equal(step.statusCode, 403, `GET ${path}`)
      assert.match(step.body, /Your role \(support\) may not do this/)
    }
    await support.get(`/console/accounts/${s.accountId}`) // the support's own, valid token
    assert.ok(support.csrf)
    for (const [path, fields] of s.adminPosts) {
      const response = await support.post(path, fields)
      assert.equal(response.statusCode, 403, `POST ${path}`)
      assert.match(response.headers['content-type'] as string, /^text\/html/)
      assert.match(response.body, /Your role \(support\) may not do this/)
    }
    // An admin's token in the support's session is refused too.
    const admin = await signedInOperator(h, { role: 'admin' })
    await admin.get(`/console/accounts/${s.accountId}`)
    for (const [path, fields] of s.adminPosts)
      assert.equal((await support.post(path, { ...fields, _csrf: admin.csrf })).statusCode, 403, path)
    await s.unchanged()

    // What support may do, it can: lift the ban and resend the verification, each recorded with its email.
    for (const [path, fields] of s.supportPosts) {
      assert.equal((await support.get(path)).statusCode, 200, `GET ${path}`)
      locationOf(await support.post(path, fields))
    }
    assert.equal((await api(h, s.key.key)).statusCode, 200)
    assert.equal((await entriesOf(h, s.accountId, 'ban.lifted'))[0]!.actor.email, support.operator.email)
    assert.equal(
      (await entriesOf(h, s.accountId, 'account.verification_resent'))[0]!.actor.email,
      support.operator.email,
    )
  },
)

test(
  'an admin POST without the CSRF token, with a wrong one, ' + 'or from another origin is 403 and changes nothing',
  async (t) => {
    const h = await consoleHarness(t, { now: T0 })
    const s = await scene(h)
    const admin = await signedInOperator(h, { role: 'admin' })
    await admin.get(`/console/accounts/${s.accountId}`)
    const good = admin.csrf
    for (const [path, fields] of [...s.adminPosts, ...s.supportPosts]) {
      const attempts = [
        admin.post(path, { ...fields, _csrf: '' }),
        admin.post(path, { ...fields, _csrf: `${good.slice(0, -2)}AA` }),
        admin.post(path, fields, { origin: 'https://evil.example' }),
        admin.post(path, fields, {}),
      ]
      for (const response of await Promise.all(attempts)) {
        assert.equal(response.statusCode, 403, `${path}: ${response.body.slice(0, 200)}`)
        assert.match(response.body, /Request refused/)
      }
    }
    await s.unchanged()
  },
)

test('a signed-out browser, and one that logged out, are refused: nothing changes', async (t) => {
  const h = await consoleHarness(t, { now: T0 })
  const s = await scene(h)
  const stranger = client(h.app)
  await stranger.get('/console/login') // a pre-session with its own valid token
  assert.ok(stranger.csrf)
  for (const [path, fields] of [...s.adminPosts, ...s.supportPosts]) {
    const response = await stranger.post(path, fields)
    assert.equal(response.statusCode, 403, path)
    assert.ok(!response.body.includes('target@example.com'))
  }

  const admin = await signedInOperator(h, { role: 'admin' })
  await admin.get(`/console/accounts/${s.accountId}`)
  const token = admin.csrf
  const cookies = new Map(admin.jar)
  assert.equal((await admin.post('/console/logout', {})).statusCode, 303)
  // The old cookies and token replayed after the log-out.
  for (const [name, value] of cookies) admin.jar.set(name, value)
  for (const [path, fields] of [...s.adminPosts, ...s.supportPosts]) {
    const response = await admin.post(path, { ...fields, _csrf: token }, { origin: ORIGIN })
    assert.equal(response.statusCode, 403, path)
  }
  await s.unchanged()
})
