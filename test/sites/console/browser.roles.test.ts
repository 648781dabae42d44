// A support operator in Chromium: reads everything, lifts a real ban (a key that overran its limit) and resends a
// verification mail, but sees no admin control (Change plan, Suspend, Revoke, Delete account, Approve, Decline), and
// an admin POST replayed with the support session's own valid cookie and CSRF token is answered 403 and changes
// nothing. The account page as support and both of its confirmation pages without a serious axe violation; the
// ban lifted and the mail resent on record in /console/audit, on /portal/activity and in `petstore audit list`.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { launchChromium, signUpInBrowser } from '../../helpers/browser.js'
import { accessible, consoleBrowserHarness, operatorInBrowser } from '../../helpers/console-browser.js'
import { GOOD_PASSWORD, linkIn, mails } from '../../helpers/portal.js'

const OWNER = 'busy@example.com'
const UNVERIFIED = 'late-reader@example.com'
const SUPPORT = 'support@ops.example'
const ADMIN_CONTROLS = ['Change plan', 'Suspend', 'Reactivate', 'Revoke', 'Delete account', 'Approve', 'Decline']

test('support lifts a real ban and resends a verification; ' +
  'admin controls are absent and a replayed admin POST is 403', {
  timeout: 180_000,
}, async (t) => {
  const browser = await launchChromium(t)
  const h = await consoleBrowserHarness(t)
  const base = h.baseUrl
  const owner = await (await browser.newContext({ viewport: { width: 1100, height: 800 } })).newPage()
  const accountId = await signUpInBrowser(owner, h, h.outbox, OWNER, GOOD_PASSWORD)
  const actor = { kind: 'account' as const, accountId, email: OWNER, address: '127.0.0.1' }
  await h.services.planRequests!.create({ accountId, plan: 'business', note: 'More, please.', actor })
  // A small quota, so that overrunning it takes few requests; then a real ban: more than 30 refusals in a minute.
  await h.services.accounts.setPlan({
    id: accountId,
    plan: 'enterprise',
    perMinute: 2,
    perDay: 1000,
    actor: { kind: 'cli', user: 'test' },
  })
  const { key, id: keyId } = await h.services.accounts.createApiKey({
    actor,
    accountId,
    environment: 'test',
    name: 'hammer',
  })
  const call = async () => {
    const response = await fetch(`${base}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })
    return {
      status: response.status,
      code: response.status === 200 ? undefined : ((await response.json()) as { code: string }).code,
    }
  }
  const codes: Array<string | undefined> = []
  for (let i = 0; i < 33; i++) codes.push((await call()).code)
  assert.deepEqual(codes.slice(0, 2), [undefined, undefined])
  assert.equal(codes.at(-1), 'temporarily_banned', codes.join(','))
  assert.equal((await call()).code, 'temporarily_banned')

  // Someone who signed up and has not opened the link yet.
  const late = await (await browser.newContext()).newPage()
  await late.goto(`${base}/portal/signup`)
  await late.getByLabel('Email').fill(UNVERIFIED)
  await late.getByLabel('Password').fill(GOOD_PASSWORD)
  await late.getByRole('button', { name: 'Create account' }).click()
  await late.getByRole('heading', { name: 'Check your email' }).waitFor()
  await mails(h, h.outbox)
  const lateId = (
    await h.handle.db
      .selectFrom('portal_users')
      .select('account_id')
      .where('email_key', '=', UNVERIFIED)
      .executeTakeFirstOrThrow()
  ).account_id

  const { page, context } = await operatorInBrowser(browser, h, 'support', SUPPORT)
  const absent = async (where: string) => {
    for (const name of ADMIN_CONTROLS)
      assert.equal(await page.getByRole('button', { name, exact: true }).count(), 0, `${name} on ${where}`)
  }

  // The account page as support: the ban and Lift ban, no admin control.
  await page.goto(`${base}/console/accounts/${accountId}`)
  await page.getByRole('heading', { name: /^Account / }).waitFor()
  assert.match(await page.locator('main').innerText(), /banned until/)
  await absent('the account page')
  await accessible(page, 'console-account-support')
  await page
    .getByRole('row', { name: /hammer/ })
    .getByRole('button', { name: 'Lift ban' })
    .click()
  await page.getByRole('heading', { name: 'Lift a ban' }).waitFor()
  await accessible(page, 'console-confirm-lift-ban')
  await page.getByRole('button', { name: 'Lift ban' }).click()
  await page.getByRole('status').filter({ hasText: 'The ban was lifted' }).waitFor()
  // The ban would last 900 s: now the key is at most limited by its quota (if this minute's is still spent).
  const lifted = await call()
  assert.ok(
    lifted.status === 200 || lifted.code === 'rate_limit_exceeded',
    `no longer banned: ${lifted.status} ${lifted.code}`,
  )
  h.clock.advance(60_000)
  assert.equal((await call()).status, 200, 'admitted in the next minute')

  // The plan requests page as support: the request, no Approve or Decline.
  await page.goto(`${base}/console/requests`)
  assert.match(await page.getByRole('row').filter({ hasText: OWNER }).innerText(), /business/)
  await absent('the plan requests page')
  await accessible(page, 'console-requests-support')

  // Resend verification (a minute after the sign-up's link, else that link is still the one).
  h.clock.advance(61_000)
  await page.goto(`${base}/console/accounts/${lateId}`)
  await page.getByRole('button', { name: 'Resend verification' }).click()
  await page.getByRole('heading', { name: 'Resend verification' }).waitFor()
  await accessible(page, 'console-confirm-resend')
  const before = (await mails(h, h.outbox)).length
  await page.getByRole('button', { name: 'Resend verification' }).click()
  await page.getByRole('status').filter({ hasText: 'A fresh verification link was mailed' }).waitFor()
  const sent = (await mails(h, h.outbox)).slice(before)
  assert.equal(sent.length, 1)
  assert.match(sent[0]!, new RegExp(`^To: ${UNVERIFIED}`, 'm'))
  assert.ok(linkIn(sent[0]!, '/portal/verify').startsWith(`${base}/portal/verify/`))

  // Admin POSTs replayed with support's own valid session cookie and CSRF token: 403, nothing changed.
  await page.goto(`${base}/console/accounts/${accountId}`)
  const csrf = (await page.locator('input[name=_csrf]').first().getAttribute('value'))!
  const cookie = (await context.cookies(`${base}/console`)).map((c) => `${c.name}=${c.value}`).join('; ')
  const replay = (path: string, fields: Record<string, string>) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, origin: base, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, ...fields }),
    })
  const pending = (await h.services.planRequests!.list('pending', 10))[0]!
  const attempts = {
    suspend: await replay(`/console/accounts/${accountId}/suspend`, { reason: 'support tries' }),
    plan: await replay(`/console/accounts/${accountId}/plan`, { plan: 'free', per_minute: '', per_day: '' }),
    revoke: await replay(`/console/accounts/${accountId}/keys/${keyId}/revoke`, {}),
    delete: await replay(`/console/accounts/${accountId}/delete`, { reason: 'support tries' }),
    approve: await replay(`/console/requests/${pending.id}/approve`, {}),
  }
  for (const [what, response] of Object.entries(attempts)) {
    assert.equal(response.status, 403, what)
    assert.match(await response.text(), /Not allowed/, what)
  }
  // The same session's support POST still works: the token and cookie were good, only the role was not.
  const control = await replay(`/console/accounts/${accountId}/keys/${keyId}/unban`, {})
  assert.equal(control.status, 303)
  const account = await h.services.accounts.getAccount(accountId)
  assert.deepEqual(
    [account.plan, account.suspendedAt, account.deletedAt, account.quota.perMinute],
    ['enterprise', null, null, 2],
  )
  assert.equal((await h.services.accounts.getApiKey(keyId)).revokedAt, null)
  assert.equal((await h.services.planRequests!.list('pending', 10)).length, 1)

  // On record: the support operator's changes, and no admin action at all.
  await page.goto(`${base}/console/audit?actor=${encodeURIComponent(SUPPORT)}`)
  const actions = (await page.locator('table.audit tbody th[scope=row]').allInnerTexts()).filter(
    (a) => !a.startsWith('operator.'),
  )
  assert.deepEqual(actions, ['account.verification_resent', 'ban.lifted'])
  const listed = await h.cliJson<{
    events: Array<{ action: string; accountId: string | null; actor: { kind: string; email: string | null } }>
  }>(['audit', 'list'])
  const bySupport = listed.events.filter((e) => e.actor.email === SUPPORT && !e.action.startsWith('operator.'))
  assert.deepEqual(
    bySupport.map((e) => [e.action, e.accountId]),
    [
      ['account.verification_resent', lateId],
      ['ban.lifted', accountId],
    ],
  )
  assert.ok(
    !listed.events.some((e) =>
      ['account.suspended', 'account.deleted', 'key.revoked', 'plan_request.approved'].includes(e.action),
    ),
  )
  await owner.goto(`${base}/portal/activity`)
  const liftedRow = owner.locator('table.activity tbody tr').filter({ hasText: 'Key ban lifted' })
  assert.equal(await liftedRow.count(), 1)
  assert.equal((await liftedRow.locator('td[data-label=By]').innerText()).trim(), 'Operator')
})
