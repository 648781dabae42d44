// An admin runs an integrator's account from Chromium, end to end: the integrator signs up and makes a key in the
// portal and calls the API; the admin (made by the CLI, logged in with a TOTP code) sees the overview, finds the
// account by email and by the key's prefix, changes its plan (the next response's X-RateLimit-Limit follows),
// suspends it (403 account_suspended on /v1 and on the messages interface; the owner sees why in the portal),
// reactivates it with the keyboard alone (200 again), revokes the key (401), deletes another account; every console
// page and confirmation page without a serious axe violation; all of it on record in /console/audit (and its CSV),
// on the integrator's /portal/activity (as "Operator") and in `petstore audit list --json`.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { test } from 'node:test'
import type { Page } from 'playwright-core'
import { launchChromium, signUpInBrowser } from '../../helpers/browser.js'
import {
  accessible,
  consoleBrowserHarness,
  messagesApp,
  operatorInBrowser,
  tabTo,
} from '../../helpers/console-browser.js'
import { errorOf } from '../../helpers/harness.js'
import { postMessage } from '../../helpers/messages-harness.js'
import { GOOD_PASSWORD } from '../../helpers/portal.js'

const OWNER = 'shop-owner@example.com'
const ADMIN = 'admin@ops.example'
const REASON = 'Card payments failed three times'

test('an admin finds an account, changes its plan, suspends, ' +
  'reactivates, revokes and deletes in Chromium; all on record', {
  timeout: 180_000,
}, async (t) => {
  const browser = await launchChromium(t)
  const h = await consoleBrowserHarness(t)
  const base = h.baseUrl
  const messages = await messagesApp(t, h)

  // The integrator: signs up, makes a key in the portal, calls the API.
  const owner = await (await browser.newContext({ viewport: { width: 1100, height: 800 } })).newPage()
  const accountId = await signUpInBrowser(owner, h, h.outbox, OWNER, GOOD_PASSWORD)
  await owner.goto(`${base}/portal/keys`)
  await owner.getByRole('button', { name: 'Create key' }).click()
  await owner.getByLabel('Key name').fill('checkout')
  await owner.getByRole('button', { name: 'Create', exact: true }).click()
  const key = (await owner.locator('#secret').textContent())!.trim()
  const api = async () => {
    const response = await fetch(`${base}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })
    return { status: response.status, limit: response.headers.get('x-ratelimit-limit'), body: await response.text() }
  }
  const message = () => postMessage({ app: messages }, key, { message: 'hello' })
  assert.equal((await api()).limit, '60')
  for (let i = 0; i < 3; i++) await api()
  await fetch(`${base}/v1/pets/987654`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.arrayBuffer())
  const other = await h.newAccount({ name: 'Dormant Ltd' })

  // The admin: made by the CLI, set up and logged in (TOTP).
  const { page } = await operatorInBrowser(browser, h, 'admin', ADMIN)
  await h.services.usage.flush()
  await page.goto(`${base}/console`)
  await page.getByRole('heading', { name: 'Overview' }).waitFor()
  await accessible(page, 'console-overview')

  // Find the account: a search that matches several lists them (the owner's and Dormant Ltd both have an "o");
  // one that matches a single account, the key's prefix as a log shows it, opens that account and says why.
  const search = async (text: string) => {
    await page.getByRole('link', { name: 'Accounts' }).click()
    await page.getByLabel('Search', { exact: true }).fill(text)
    await page.getByRole('button', { name: 'Search' }).click()
  }
  await search('o')
  await page.getByRole('table').waitFor()
  const found = page.getByRole('row').filter({ hasText: OWNER })
  assert.equal(await found.count(), 1)
  await accessible(page, 'console-search')
  await search(key.slice(0, 12))
  await page.waitForURL(new RegExp(`/console/accounts/${accountId}\\?found=key-prefix$`))
  await page.getByRole('heading', { name: /^Account / }).waitFor()
  assert.match(await page.getByRole('status').first().innerText(), /by the prefix of one of its keys/)
  const facts = page.getByRole('table', { name: 'Account', exact: true })
  assert.match(await facts.innerText(), new RegExp(`${OWNER.replace('.', '\\.')} \\(verified`))
  await accessible(page, 'console-account-before')

  const accountPage = `${base}/console/accounts/${accountId}`
  const notice = (page: Page, text: string) => page.getByRole('status').filter({ hasText: text }).waitFor()

  // Change plan: free (60/min) to pro (300/min), seen on the very next API response.
  await page.getByRole('button', { name: 'Change plan' }).click()
  await page.getByRole('heading', { name: 'Change plan' }).waitFor()
  await accessible(page, 'console-confirm-plan')
  await page.getByLabel('Plan', { exact: true }).selectOption('pro')
  await page.getByRole('button', { name: 'Change plan' }).click()
  await notice(page, 'The plan was changed.')
  assert.equal((await api()).limit, '300')

  // Suspend with a reason: 403 account_suspended on the API and the messages interface.
  await page.getByRole('button', { name: 'Suspend' }).click()
  await page.getByRole('heading', { name: 'Suspend the account' }).waitFor()
  await accessible(page, 'console-confirm-suspend')
  await page.getByLabel('Reason', { exact: true }).fill(REASON)
  await page.getByRole('button', { name: 'Suspend' }).click()
  await notice(page, 'The account was suspended')
  const refused = await api()
  assert.equal(refused.status, 403)
  assert.equal(
    errorOf({ statusCode: 403, headers: { 'content-type': 'application/json' }, body: refused.body }).code,
    'account_suspended',
  )
  const refusedMessage = await message()
  assert.equal(refusedMessage.statusCode, 403)
  assert.equal(errorOf(refusedMessage).code, 'account_suspended')
  await owner.goto(`${base}/portal/keys`)
  assert.match(await owner.locator('main').innerText(), new RegExp(`suspended[\\s\\S]*${REASON}`))

  // Reactivate with the keyboard alone: Tab to the button, Enter; on the confirmation page Tab to it, Enter.
  await page.goto(accountPage)
  const reactivate = page.getByRole('button', { name: 'Reactivate' })
  await tabTo(page, reactivate)
  await page.keyboard.press('Enter')
  await page.getByRole('heading', { name: 'Reactivate the account' }).waitFor()
  await accessible(page, 'console-confirm-reactivate')
  await tabTo(page, page.getByRole('button', { name: 'Reactivate' }))
  await page.keyboard.press('Enter')
  await notice(page, 'The account was reactivated')
  assert.equal((await api()).status, 200)
  assert.equal((await message()).statusCode, 202)
  await accessible(page, 'console-account')

  // Revoke the key: 401 from the next request on.
  await page
    .getByRole('row', { name: /checkout/ })
    .getByRole('button', { name: 'Revoke' })
    .click()
  await page.getByRole('heading', { name: 'Revoke a key' }).waitFor()
  await accessible(page, 'console-confirm-revoke')
  await page.getByRole('button', { name: 'Revoke' }).click()
  await notice(page, 'The key was revoked')
  const revoked = await api()
  assert.equal(revoked.status, 401)

  // Delete another account (the CLI's): its key is refused.
  await page.goto(`${base}/console/accounts/${other.accountId}`)
  await page.getByRole('button', { name: 'Delete account' }).click()
  await page.getByRole('heading', { name: 'Delete the account' }).waitFor()
  await accessible(page, 'console-confirm-delete')
  await page.getByLabel('Reason', { exact: true }).fill('Asked by its owner by phone')
  await page.getByRole('button', { name: 'Delete account' }).click()
  await notice(page, 'The account was deleted')
  assert.equal((await fetch(`${base}/v1/pets`, { headers: { authorization: `Bearer ${other.key}` } })).status, 401)

  // On record in the console's audit log, newest first, with the admin's email; and in its CSV export.
  const expected = ['key.revoked', 'account.reactivated', 'account.suspended', 'account.plan_changed']
  await page.goto(`${base}/console/audit?account=${accountId}`)
  await page.getByRole('heading', { name: 'Audit log' }).waitFor()
  const rows = page.locator('table.audit tbody tr')
  const byAdmin = (await rows.allInnerTexts()).filter((r) => r.includes(`${ADMIN} (operator)`))
  assert.deepEqual(
    byAdmin.map((r) => expected.find((a) => r.includes(a))),
    expected,
  )
  assert.match(byAdmin[2]!, new RegExp(REASON))
  assert.match(byAdmin[3]!, /plan: free → pro/)
  await page.goto(`${base}/console/audit`)
  await accessible(page, 'console-audit')
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export CSV' }).click(),
  ])
  assert.match(download.suggestedFilename(), /^petstore-audit-\d{4}-\d{2}-\d{2}\.csv$/)
  const csvText = await readFile((await download.path())!, 'utf8')
  for (const action of [...expected, 'account.deleted', 'operator.login'])
    assert.ok(csvText.includes(action), `${action} in the CSV`)

  // On the integrator's activity page: the operator shown as "Operator", never by email.
  await owner.goto(`${base}/portal/activity`)
  const activity = owner.locator('table.activity tbody tr')
  const seen = await Promise.all(
    (await activity.all()).map(async (row) => [
      (await row.locator('th').innerText()).trim(),
      (await row.locator('td[data-label=By]').innerText()).trim(),
    ]),
  )
  for (const what of ['Plan changed', 'Account suspended', 'Account reactivated', 'Key revoked'])
    assert.deepEqual(
      seen.find(([w]) => w === what),
      [what, 'Operator'],
      what,
    )
  assert.ok(
    !(await owner.locator('main').innerText()).includes(ADMIN),
    "the operator's email is not shown to the integrator",
  )

  // And in `petstore audit list --account ID --json`.
  const listed = await h.cliJson<{
    events: Array<{
      action: string
      actor: { kind: string; email: string | null }
      changes: Record<string, any> | null
    }>
  }>(['audit', 'list', '--account', accountId])
  const operatorEvents = listed.events.filter((e) => e.actor.kind === 'operator')
  assert.deepEqual(
    operatorEvents.map((e) => e.action),
    expected,
  )
  assert.ok(operatorEvents.every((e) => e.actor.email === ADMIN))
  assert.equal(operatorEvents[2]!.changes?.reason, REASON)
  assert.ok(!JSON.stringify(listed).includes(key), 'no secret in the audit log')
})
