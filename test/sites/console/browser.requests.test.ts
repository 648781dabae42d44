// Plan requests end to end in Chromium: the integrator asks for a higher plan on the portal's usage page, an admin
// approves it in /console/requests (the account's next API response has the new X-RateLimit-Limit) and the
// integrator is mailed; a second request is declined with a reason, mailed too and shown on the usage page. The
// requests page and both confirmation pages without a serious axe violation; every step on record in
// /console/audit, on /portal/activity and in `petstore audit list --json`.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { launchChromium, signUpInBrowser } from '../../helpers/browser.js'
import { accessible, consoleBrowserHarness, operatorInBrowser } from '../../helpers/console-browser.js'
import { GOOD_PASSWORD, linkIn, mails } from '../../helpers/portal.js'

const OWNER = 'growing@example.com'
const ADMIN = 'approver@ops.example'
const DECLINED = 'Business needs a signed contract first: write to sales.'

test('a plan request from the portal is approved in the console (plan changed, ' +
  'owner mailed); the next is declined with a reason', {
  timeout: 180_000,
}, async (t) => {
  const browser = await launchChromium(t)
  const h = await consoleBrowserHarness(t)
  const base = h.baseUrl
  const owner = await (await browser.newContext({ viewport: { width: 1100, height: 800 } })).newPage()
  const accountId = await signUpInBrowser(owner, h, h.outbox, OWNER, GOOD_PASSWORD)
  const { key } = await h.services.accounts.createApiKey({
    actor: { kind: 'account', accountId, email: OWNER, address: '127.0.0.1' },
    accountId,
    environment: 'test',
    name: 'ci',
  })
  const limit = async () =>
    (await fetch(`${base}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })).headers.get('x-ratelimit-limit')
  assert.equal(await limit(), '60')

  // The integrator asks for pro on the usage page.
  const ask = async (plan: string, note: string) => {
    await owner.goto(`${base}/portal/usage`)
    await owner.getByLabel('Plan', { exact: true }).selectOption(plan)
    await owner.getByLabel('Note', { exact: true }).fill(note)
    await owner.getByRole('button', { name: 'Request a higher plan' }).click()
    await owner.getByRole('status').filter({ hasText: 'Request sent.' }).waitFor()
    assert.equal(
      await owner.locator(`select#plan option[value="${plan}"]`).count(),
      0,
      'a plan that waits is not offered again',
    )
  }
  await ask('pro', 'Our nightly sync needs about 200 requests a minute.')

  // The admin approves it.
  const { page } = await operatorInBrowser(browser, h, 'admin', ADMIN)
  await page.getByRole('link', { name: 'Plan requests' }).click()
  await page.getByRole('heading', { name: 'Plan requests' }).waitFor()
  const waiting = page.getByRole('row').filter({ hasText: OWNER })
  assert.match(await waiting.innerText(), /free[\s\S]*pro[\s\S]*nightly sync/)
  assert.match(await waiting.innerText(), /New account/, 'made today: marked in words')
  await accessible(page, 'console-requests')
  await waiting.getByRole('button', { name: 'Approve' }).click()
  await page.getByRole('heading', { name: 'Approve the plan request' }).waitFor()
  await accessible(page, 'console-confirm-approve')
  await page.getByRole('button', { name: 'Approve' }).click()
  await page.getByRole('status').filter({ hasText: 'Approved' }).waitFor()
  assert.equal(await limit(), '300', 'the next response has the pro limit')
  const approvedMail = (await mails(h, h.outbox)).findLast((m) =>
    /^Subject: Your plan request was approved: pro/m.test(m),
  )
  assert.ok(approvedMail, 'the integrator was mailed the approval')
  assert.match(approvedMail, new RegExp(`^To: ${OWNER}`, 'm'))
  assert.ok(linkIn(approvedMail, '/portal/usage').startsWith(`${base}/portal/usage`))

  // The next request (business) is declined with a reason.
  await ask('business', 'And later more.')
  await page.goto(`${base}/console/requests`)
  await page
    .getByRole('row')
    .filter({ hasText: OWNER })
    .filter({ hasText: 'business' })
    .getByRole('button', { name: 'Decline' })
    .click()
  await page.getByRole('heading', { name: 'Decline the plan request' }).waitFor()
  await accessible(page, 'console-confirm-decline')
  await page.getByLabel('Reason', { exact: true }).fill(DECLINED)
  await page.getByRole('button', { name: 'Decline' }).click()
  await page.getByRole('status').filter({ hasText: 'Declined' }).waitFor()
  assert.equal(await limit(), '300', 'a declined request changes nothing')
  const declinedMail = (await mails(h, h.outbox)).findLast((m) =>
    /^Subject: Your plan request was declined: business/m.test(m),
  )
  assert.ok(
    declinedMail
      ?.replace(/=\r?\n/g, '')
      .replace(/\s+/g, ' ')
      .includes(DECLINED),
    'the reason is in the mail',
  )
  await owner.goto(`${base}/portal/usage`)
  assert.ok((await owner.locator('main').innerText()).includes(DECLINED), 'the usage page shows the reason')
  await page.goto(`${base}/console/requests`)
  assert.match(
    await page.locator('main').innerText(),
    new RegExp(`Approved by ${ADMIN}[\\s\\S]*Declined by ${ADMIN}|Declined by ${ADMIN}[\\s\\S]*Approved by ${ADMIN}`),
  )

  // On record: the console (the admin's email), the integrator's activity ("Operator"), the CLI.
  const expected = [
    'plan_request.declined',
    'plan_request.created',
    'account.plan_changed',
    'plan_request.approved',
    'plan_request.created',
  ]
  await page.goto(`${base}/console/audit?account=${accountId}`)
  const actions = (await page.locator('table.audit tbody th[scope=row]').allInnerTexts()).filter((a) =>
    a.startsWith('plan'),
  )
  assert.deepEqual(
    actions.filter((a) => a !== 'account.plan_changed'),
    expected.filter((a) => a !== 'account.plan_changed'),
  )
  const auditText = await page.locator('table.audit').innerText()
  assert.ok(auditText.includes(`${ADMIN} (operator)`) && auditText.includes(`${OWNER} (integrator)`))
  await owner.goto(`${base}/portal/activity`)
  const activity = await owner.locator('table.activity tbody').innerText()
  for (const what of ['Higher plan requested', 'Plan request approved', 'Plan request declined'])
    assert.ok(activity.includes(what), what)
  assert.ok(!activity.includes(ADMIN), 'no operator email for the integrator')
  const listed = await h.cliJson<{
    events: Array<{
      action: string
      actor: { kind: string; email: string | null }
      changes: Record<string, any> | null
    }>
  }>(['audit', 'list', '--account', accountId])
  const planEvents = listed.events
    .filter((e) => e.action.startsWith('plan_request') || e.action === 'account.plan_changed')
    .map((e) => e.action)
  // The approval and the plan change it makes are one change: their order between them is not a promise.
  assert.deepEqual([...planEvents.slice(0, 2), ...planEvents.slice(2, 4).sort(), planEvents[4]], expected)
  const declined = listed.events.find((e) => e.action === 'plan_request.declined')!
  assert.equal(declined.actor.email, ADMIN)
  assert.equal(declined.changes?.reason, DECLINED)
})
