// An integrator's second factors on the console's account page: the "Two-factor log-in" line (what is set up and how
// many, never a secret), and Reset second factors for admins (a confirmation step, the audit entry, mail to the user).
// The user enrols an authenticator app through the two-factor service, as the portal's pages do.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { totpCode } from '../../../src/modules/sign-in/totp.js'
import { consoleHarness, secretsIn, signedInOperator, type ConsoleHarness } from '../../helpers/console.js'
import { client, GOOD_PASSWORD, linkIn, mails, ORIGIN, signedUpUser } from '../../helpers/portal.js'
import { buttonsOf, entriesOf, locationOf } from './account-support.js'

const T0 = Date.parse('2027-03-01T10:00:00Z')
const SUBJECT = 'Subject: The second factors of your Petstore account were reset'

/** A portal user (signed up, verified) with an authenticator app: its account, the app's secret, its recovery codes. */
async function userWithApp(h: ConsoleHarness, email: string) {
  await signedUpUser(h, email)
  const row = await h.handle.db
    .selectFrom('portal_users')
    .select(['id', 'account_id', 'email'])
    .where('email', '=', email)
    .executeTakeFirstOrThrow()
  const user = { id: row.id, account_id: row.account_id, email: row.email }
  const actor = { kind: 'account' as const, accountId: user.account_id, email }
  const started = await h.services.twoFactor.startApp(user)
  assert.ok(started, 'an app can be enrolled here')
  const confirmed = await h.services.twoFactor.confirmApp(user, totpCode(started.secret, h.clock.now()), actor)
  assert.equal(confirmed.outcome, 'confirmed')
  assert.ok('recoveryCodes' in confirmed && confirmed.recoveryCodes?.length === 10)
  return { user, accountId: user.account_id, secret: started.secret, recoveryCodes: confirmed.recoveryCodes }
}

/** A password log-in to the portal in a fresh browser: 303 (signed in) or 200 (the second step's page). */
async function passwordLogIn(h: ConsoleHarness, email: string) {
  const browser = client(h.app)
  await browser.get('/portal/login')
  return (await browser.post('/portal/login', { email, password: GOOD_PASSWORD })).statusCode
}

const resetMails = async (h: ConsoleHarness) => (await mails(h, h.outbox)).filter((m) => m.includes(SUBJECT))
const notice = (body: string) => /<div class="notice notice-success" role="status">([^<]*)<\/div>/.exec(body)?.[1]
const factorsLine = (body: string) => /<tr><th scope="row">Two-factor log-in<\/th><td>(.*?)<\/td><\/tr>/.exec(body)?.[1]

test(
  'the account page shows the user’s second factors and no secret; ' +
    'an admin’s reset clears them, is audited and mailed, and the page then says Off',
  async (t) => {
    const h = await consoleHarness(t, { now: T0 })
    const { user, accountId, secret, recoveryCodes } = await userWithApp(h, 'two@example.com')
    const admin = await signedInOperator(h, { role: 'admin' })
    const page = `/console/accounts/${accountId}`
    assert.equal(await passwordLogIn(h, user.email), 200, 'the password alone is not enough: the second step')

    const before = await admin.get(page)
    assert.equal(before.statusCode, 200)
    assert.equal(
      factorsLine(before.body),
      '<strong>On</strong> (authenticator app: yes; passkeys: 0; recovery codes left: 10)',
    )
    assert.ok(!before.body.includes(secret), 'the app’s secret is not shown')
    assert.deepEqual(secretsIn(before.body), [])
    for (const code of recoveryCodes) assert.ok(!before.body.includes(code), 'no recovery code is shown')
    assert.ok(buttonsOf(before.body).includes('Reset second factors'))

    // The confirmation step: what goes, the out-of-band check, who is told; nothing changes yet.
    const step = await admin.get(`${page}/second-factors`)
    assert.equal(step.statusCode, 200, step.body)
    assert.match(step.body, /every second factor of <strong>two@example.com<\/strong>: the authenticator app and 10 /)
    assert.match(step.body, /Only reset after verifying, out of band/)
    assert.ok(step.body.includes(`<form method="post" action="${page}/second-factors"`))
    assert.ok(!step.body.includes(secret))
    assert.equal((await h.services.twoFactor.status(user.id)).enabled, true)

    h.clock.advance(5 * 60_000)
    const unsaid = await admin.post(`${page}/second-factors`, { reason: '  ' })
    assert.equal(unsaid.statusCode, 400, 'how the person was verified must be said')
    assert.match(unsaid.body, /Say how you verified them/)
    assert.equal((await h.services.twoFactor.status(user.id)).enabled, true, 'nothing changed')
    const location = locationOf(
      await admin.post(`${page}/second-factors`, { reason: 'Called back the number on file, ticket 4127' }),
    )
    assert.equal(location, `${page}?done=second-factors-reset`)
    const after = await admin.get(location)
    assert.match(notice(after.body)!, /second factors were reset: they log in with their password alone/)
    assert.equal(factorsLine(after.body), 'Off (authenticator app: no; passkeys: 0; recovery codes left: 0)')
    assert.ok(!buttonsOf(after.body).includes('Reset second factors'), 'nothing left to reset')
    assert.deepEqual(await h.services.twoFactor.status(user.id), {
      app: false,
      passkeys: [],
      recoveryCodesLeft: 0,
      enabled: false,
    })
    assert.equal(await passwordLogIn(h, user.email), 303, 'the password alone signs in now')

    // The audit entry: the operator, the account; on the account page and in the audit log's filter.
    const [entry, ...more] = await entriesOf(h, accountId, 'account.second_factors_reset')
    assert.deepEqual(more, [])
    assert.equal(entry!.actor.kind, 'operator')
    assert.equal(entry!.actor.email, admin.operator.email)
    assert.deepEqual(entry!.target, { kind: 'account', id: accountId })
    assert.deepEqual(entry!.changes, { reason: 'Called back the number on file, ticket 4127' })
    assert.ok(!JSON.stringify(entry).includes(secret))
    assert.match(after.body, /<th scope="row">account.second_factors_reset<\/th>/)
    const audit = await admin.get('/console/audit?action=account.second_factors_reset')
    assert.equal(audit.statusCode, 200)
    assert.match(audit.body, /<option value="account.second_factors_reset" selected>/)
    assert.match(audit.body, new RegExp(`${admin.operator.email}.*account.second_factors_reset`, 's'))

    // The user is told: when, that the password alone logs in now, where to set it up again, what if it was not them.
    const [mail, ...others] = await resetMails(h)
    assert.deepEqual(others, [])
    assert.match(mail!, /^To: two@example.com$/m)
    const text = mail!.replace(/\r?\n/g, ' ')
    assert.match(text, /An operator reset the second factors of your Petstore account on 2027-03-01 10:05 UTC/)
    assert.match(text, /You now log in with your password alone/)
    assert.equal(linkIn(mail!, '/portal/account'), `${ORIGIN}/portal/account`)
    assert.equal(linkIn(mail!, '/portal/reset-request'), `${ORIGIN}/portal/reset-request`)
    assert.match(text, /If you did not ask for this, choose a new password now .* and contact support/)
    assert.ok(!mail!.includes(secret))

    // Sent again (a second click, a replay): nothing more is done, recorded or mailed; the step is no longer offered.
    const again = await admin.post(`${page}/second-factors`, { reason: 'Asked twice' })
    assert.match(notice((await admin.get(locationOf(again))).body)!, /Nothing/)
    assert.equal((await entriesOf(h, accountId, 'account.second_factors_reset')).length, 1)
    assert.equal((await resetMails(h)).length, 1)
    const none = await admin.get(`${page}/second-factors`)
    assert.equal(none.statusCode, 400)
    assert.match(none.body, /nothing to reset/)
  },
)

test(
  'support sees the line but no reset; its GET and POST (with its own valid CSRF token, or an admin’s) are 403 ' +
    'and change nothing; an account without a portal user has no line and nothing to reset',
  async (t) => {
    const h = await consoleHarness(t, { now: T0 })
    const { user, accountId, secret } = await userWithApp(h, 'kept@example.com')
    const support = await signedInOperator(h, { role: 'support' })
    const admin = await signedInOperator(h, { role: 'admin' })
    const page = `/console/accounts/${accountId}`
    await admin.get(`${page}/second-factors`)
    const adminToken = admin.csrf

    const shown = await support.get(page)
    assert.equal(shown.statusCode, 200)
    assert.equal(
      factorsLine(shown.body),
      '<strong>On</strong> (authenticator app: yes; passkeys: 0; recovery codes left: 10)',
    )
    assert.ok(!shown.body.includes(secret))
    assert.ok(!buttonsOf(shown.body).includes('Reset second factors'))
    assert.ok(!shown.body.includes(`${page}/second-factors`))

    const step = await support.get(`${page}/second-factors`)
    assert.equal(step.statusCode, 403)
    const replayed = await support.post(`${page}/second-factors`, {})
    assert.equal(replayed.statusCode, 403)
    assert.match(replayed.body, /Your role \(support\) may not do this/)
    assert.equal((await support.post(`${page}/second-factors`, { _csrf: adminToken })).statusCode, 403)
    // Refused before the account is looked up.
    assert.equal((await support.post('/console/accounts/acct_unknown/second-factors', {})).statusCode, 403)

    const status = await h.services.twoFactor.status(user.id)
    assert.equal(status.enabled, true)
    assert.equal(status.app, true)
    assert.equal(status.recoveryCodesLeft, 10)
    assert.deepEqual(await entriesOf(h, accountId, 'account.second_factors_reset'), [])
    assert.deepEqual(await resetMails(h), [])

    // An account the CLI made: no portal user, so no line and no reset (an admin's POST gets 400).
    const cli = await h.newAccount()
    const cliPage = await admin.get(`/console/accounts/${cli.accountId}`)
    assert.equal(factorsLine(cliPage.body), undefined)
    assert.ok(!buttonsOf(cliPage.body).includes('Reset second factors'))
    const refused = await admin.post(`/console/accounts/${cli.accountId}/second-factors`, {})
    assert.equal(refused.statusCode, 400)
    assert.match(refused.body, /has no portal user/)
    assert.deepEqual(await entriesOf(h, cli.accountId, 'account.second_factors_reset'), [])
  },
)
