// The account page and its confirmation steps in a real browser (Debian chromium): each action reached and confirmed
// with the keyboard alone by the accessible names (Change plan, Suspend with its Reason, Reactivate, Lift ban,
// Revoke, Resend verification, Delete account), no serious or critical axe-core violation, and nothing wider than a
// 375 px phone's screen.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Page } from 'playwright-core'
import { testActor } from '../../helpers/actors.js'
import { launchChromium, screenshot, seriousViolations } from '../../helpers/browser.js'
import { setUpOperator } from '../../helpers/console.js'
import { GOOD_PASSWORD, mails, portalHarness } from '../../helpers/portal.js'

const overflows = (page: Page) =>
  page.evaluate<boolean>('document.documentElement.scrollWidth > document.documentElement.clientWidth')

async function check(page: Page, what: string, width: number) {
  assert.deepEqual(await seriousViolations(page), [], `${what} at ${width}`)
  assert.equal(await overflows(page), false, `${what} fits ${width} px`)
}

/** Presses a button with the keyboard: focused by its accessible name, then Enter. */
async function press(page: Page, name: string) {
  await page.getByRole('button', { name, exact: true }).first().focus()
  await page.keyboard.press('Enter')
}

test(
  "the account page and every action's confirmation " + 'step work with the keyboard, pass axe and fit a phone',
  async (t) => {
    const h = await portalHarness(t, { listen: true, ownOrigin: true })
    const { outbox } = h
    // An unverified portal sign-up with a key used a few times and then banned.
    const signup = await fetch(`${h.baseUrl}/portal/signup`)
    const cookie = signup.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ')
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await signup.text())![1]!
    const body = new URLSearchParams({ _csrf: csrf, email: 'shop@example.com', password: GOOD_PASSWORD })
    assert.equal(
      (await fetch(`${h.baseUrl}/portal/signup`, { method: 'POST', body, headers: { cookie, origin: h.baseUrl } }))
        .status,
      200,
    )
    await mails(h, outbox)
    const { account_id: accountId } = await h.handle.db
      .selectFrom('portal_users')
      .select('account_id')
      .where('email', '=', 'shop@example.com')
      .executeTakeFirstOrThrow()
    const key = await h.services.accounts.createApiKey({
      actor: testActor,
      accountId,
      environment: 'test',
      name: 'storefront with a long descriptive name for the phone layout',
    })
    const call = () =>
      fetch(`${h.baseUrl}/v1/pets`, { headers: { authorization: `Bearer ${key.key}` } }).then(
        async (r) => (await r.arrayBuffer(), r),
      )
    for (let i = 0; i < 92; i++) await call()
    assert.equal((await call()).status, 429)
    h.clock.advance(60_000)
    const operator = await setUpOperator(h, { role: 'admin' })

    const browser = await launchChromium(t)
    const page = await browser.newPage()
    await page.goto(`${h.baseUrl}/console/accounts/${accountId}`)
    await page.getByLabel('Email').fill(operator.email)
    await page.getByLabel('Password').fill(operator.password)
    await page.getByLabel('Code').fill(operator.codeAt(h.clock.now() + 30_000))
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Account shop@example.com', level: 1 }).waitFor()
    const accountUrl = `${h.baseUrl}/console/accounts/${accountId}`

    for (const width of [1100, 375]) {
      await page.setViewportSize({ width, height: 900 })
      await page.goto(accountUrl)
      await check(page, 'the account page', width)
      await screenshot(page, `console-account-${width}`)
      // Every confirmation step, opened by its button: it passes axe and fits, and Cancel leads back.
      for (const [button, heading] of [
        ['Change plan', 'Change plan'],
        ['Suspend', 'Suspend the account'],
        ['Resend verification', 'Resend verification'],
        ['Delete account', 'Delete the account'],
        ['Revoke', 'Revoke a key'],
        ['Lift ban', 'Lift a ban'],
      ] as const) {
        await press(page, button)
        await page.getByRole('heading', { name: heading, level: 1 }).waitFor()
        await check(page, `the ${button} step`, width)
        await page.getByRole('link', { name: 'Cancel' }).press('Enter')
        await page.waitForURL(accountUrl)
      }
    }

    await page.setViewportSize({ width: 1100, height: 900 })
    // Change plan with the keyboard: the plan by its label, the quotas, Enter on the button.
    await press(page, 'Change plan')
    await page.getByLabel('Plan').selectOption('enterprise')
    await page.getByLabel('Requests per minute').fill('120')
    await page.getByLabel('Requests per day').fill('50000')
    await press(page, 'Change plan')
    await page.getByRole('status').filter({ hasText: 'The plan was changed' }).waitFor()
    assert.match(await page.getByRole('main').innerText(), /enterprise: 120 per minute, 50,000 per day/)

    // Suspend: the Reason is required (the browser keeps the form until it is given).
    await press(page, 'Suspend')
    await press(page, 'Suspend')
    assert.equal(
      await page.getByRole('heading', { name: 'Suspend the account', level: 1 }).isVisible(),
      true,
      'not sent without a reason',
    )
    await page.getByLabel('Reason').fill('Chargebacks under review')
    await press(page, 'Suspend')
    await page.getByRole('status').filter({ hasText: 'The account was suspended' }).waitFor()
    assert.equal((await call()).status, 403)
    await check(page, 'the suspended account', 1100)
    await screenshot(page, 'console-account-suspended')
    await press(page, 'Reactivate')
    await page.getByRole('heading', { name: 'Reactivate the account', level: 1 }).waitFor()
    await check(page, 'the Reactivate step', 1100)
    await press(page, 'Reactivate')
    await page.getByRole('status').filter({ hasText: 'reactivated' }).waitFor()

    await press(page, 'Lift ban')
    // The confirmation step first: a second press before it has loaded pressed the account page's button again.
    await page.getByText('Lifting the ban admits the key again at once').waitFor()
    await press(page, 'Lift ban')
    await page.getByRole('status').filter({ hasText: 'The ban was lifted' }).waitFor()
    assert.equal((await call()).status, 200)
    assert.match(
      await page.getByRole('table', { name: /latest audit entries/ }).innerText(),
      /ban.lifted[\s\S]*account.reactivated[\s\S]*account.suspended[\s\S]*account.plan_changed/,
    )
    assert.match(
      await page.getByRole('table', { name: /latest audit entries/ }).innerText(),
      new RegExp(operator.email.replace(/\./g, '\\.')),
    )
  },
)
