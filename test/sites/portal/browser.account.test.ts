// The account settings page in Chromium, at desktop (1100 px) and phone (375 px) widths: the sessions table
// (another browser, this one marked), "Log out other sessions", a refused and an accepted password change, a
// change of address through the mailed link, and deleting the account. axe-core finds nothing serious or critical
// on any of these pages; nothing scrolls sideways at 375 px. Screenshots `account-*` go to PORTAL_SCREENSHOTS.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { BrowserContext, Page } from 'playwright-core'
import { launchChromium, screenshot, seriousViolations } from '../../helpers/browser.js'
import { GOOD_PASSWORD, linkIn, mails, portalHarness } from '../../helpers/portal.js'

const EMAIL = 'grace@example.com'
const NEW_PASSWORD = 'violet-harbor-quartz-lantern'
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0'

test('account settings in Chromium: sessions, log out others, ' +
  'change password and address, delete; axe at 1100 and 375 px', {
  timeout: 240_000,
}, async (t) => {
  const browser = await launchChromium(t)
  const h = await portalHarness(t, { listen: true, ownOrigin: true })
  const { outbox } = h
  const base = h.baseUrl
  // Sign up and verify in a browser of its own.
  const signup = await (await browser.newContext()).newPage()
  await signup.goto(`${base}/portal/signup`)
  await signup.getByLabel('Email').fill(EMAIL)
  await signup.getByLabel('Password').fill(GOOD_PASSWORD)
  await signup.getByRole('button', { name: 'Create account' }).click()
  await signup.getByRole('heading', { name: 'Check your email' }).waitFor()
  const verifyMail = (await mails(h, outbox)).findLast((m) => m.includes('/portal/verify'))!
  await signup.goto(`${base}${new URL(linkIn(verifyMail, '/portal/verify')).pathname}`)
  await signup.getByRole('button', { name: 'Verify email address' }).click()
  await signup.getByRole('heading', { name: 'Address verified' }).waitFor()
  await signup.context().close()

  const logIn = async (context: BrowserContext, password: string) => {
    const page = await context.newPage()
    await page.goto(`${base}/portal/login`)
    await page.getByLabel('Email').fill(EMAIL)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByRole('heading', { name: 'API keys' }).waitFor()
    return page
  }
  /** Whether the other browser's session still works. */
  const stillIn = async (page: Page) => {
    await page.goto(`${base}/portal/keys`)
    return (await page.getByRole('heading', { level: 1 }).innerText()) === 'API keys'
  }
  const cspErrors: string[] = []
  /** axe and a screenshot at both widths; at 375 px nothing may scroll sideways. */
  const check = async (page: Page, name: string) => {
    for (const [suffix, width] of [
      ['desktop', 1100],
      ['phone', 375],
    ] as const) {
      await page.setViewportSize({ width, height: 800 })
      if (width === 375) {
        // A string: the test is compiled without the DOM's types.
        const scrollWidth = (await page.evaluate('document.documentElement.scrollWidth')) as number
        assert.ok(scrollWidth <= 375, `${name}: ${scrollWidth} px wide at 375`)
      }
      assert.deepEqual(await seriousViolations(page), [], `axe on ${name} at ${width} px`)
      await screenshot(page, `account-${name}-${suffix}`)
    }
    await page.setViewportSize({ width: 1100, height: 800 })
  }

  const phoneContext = await browser.newContext({ userAgent: FIREFOX, viewport: { width: 375, height: 800 } })
  const phone = await logIn(phoneContext, GOOD_PASSWORD)
  const desktop = await logIn(await browser.newContext({ viewport: { width: 1100, height: 800 } }), GOOD_PASSWORD)
  desktop.on(
    'console',
    (message) => void (/Content Security Policy/i.test(message.text()) && cspErrors.push(message.text())),
  )
  const section = (name: string) => desktop.getByRole('region', { name, exact: true })

  // The page, from the navigation: both sessions, this one marked.
  await desktop.getByRole('link', { name: 'Account' }).click()
  await desktop.getByRole('heading', { name: 'Account settings' }).waitFor()
  const rows = section('Sessions').getByRole('row')
  assert.equal(await rows.count(), 3, 'a header row and two sessions')
  assert.match(await rows.filter({ hasText: 'This session' }).innerText(), /Chrome on Linux/)
  assert.match(await rows.filter({ hasText: 'Firefox on Windows' }).innerText(), /127\.0\.0\.1/)
  await check(desktop, 'page')

  // Log out other sessions: the phone is out, this browser stays.
  await section('Sessions').getByRole('button', { name: 'Log out other sessions' }).click()
  await desktop.getByText('Every other session was logged out.').waitFor()
  assert.equal(await stillIn(phone), false, 'the other session ended')
  assert.equal(await stillIn(desktop), true)
  await desktop.goto(`${base}/portal/account?done=sessions`)
  await check(desktop, 'others-logged-out')

  // A wrong current password is refused in its section; then the change, which ends the phone's new session.
  const phoneAgain = await logIn(phoneContext, GOOD_PASSWORD)
  await desktop.goto(`${base}/portal/account`)
  await section('Password').getByLabel('Current password').fill('not the password at all')
  await section('Password').getByLabel('New password').fill(NEW_PASSWORD)
  await section('Password').getByRole('button', { name: 'Change password' }).click()
  await section('Password').getByRole('alert').filter({ hasText: 'The password is incorrect.' }).waitFor()
  await check(desktop, 'wrong-password')
  await section('Password').getByLabel('Current password').fill(GOOD_PASSWORD)
  await section('Password').getByLabel('New password').fill(NEW_PASSWORD)
  await section('Password').getByRole('button', { name: 'Change password' }).click()
  await desktop.getByText('Your password was changed, and every other session was logged out.').waitFor()
  assert.equal(await stillIn(phoneAgain), false, 'the change ended the other session')
  assert.equal(await stillIn(desktop), true, 'and kept this one')
  assert.ok((await mails(h, outbox)).some((m) => m.includes('Subject: Your password was changed')))

  // A new address, through the link sent to it.
  await desktop.goto(`${base}/portal/account`)
  await section('Email address').getByLabel('New email').fill('grace.h@example.com')
  await section('Email address').getByLabel('Current password').fill(NEW_PASSWORD)
  await section('Email address').getByRole('button', { name: 'Change email' }).click()
  await desktop.getByRole('heading', { name: 'Check your new address' }).waitFor()
  await check(desktop, 'email-sent')
  const link = new URL(
    linkIn(
      (await mails(h, outbox)).find((m) => m.includes('Subject: Confirm your new email address'))!,
      '/portal/account/email/',
    ),
  )
  await desktop.goto(`${base}${link.pathname}`)
  await check(desktop, 'email-confirm')
  await desktop.getByRole('button', { name: 'Confirm new address' }).click()
  await desktop.getByRole('heading', { name: 'Address changed' }).waitFor()
  assert.match(await desktop.locator('header .who').innerText(), /grace\.h@example\.com/)

  // Delete the account: confirmed with the password, then logged out.
  await desktop.goto(`${base}/portal/account`)
  await section('Delete account').getByLabel('Current password').fill(NEW_PASSWORD)
  await section('Delete account').getByRole('button', { name: 'Delete account' }).click()
  await desktop.getByRole('heading', { name: 'Account deleted' }).waitFor()
  await check(desktop, 'deleted')
  assert.equal(await stillIn(desktop), false)
  assert.deepEqual(cspErrors, [], 'nothing on these pages was blocked by the CSP')
})
