// PORTAL_SIGNUP=closed in Chromium: the portal's sign-up page says whom to ask; an admin makes an account in the
// console (a refused address first, then the account page with its notice), each page checked with axe at 1100 and
// 375 px; the owner opens the mailed link, chooses a password and logs in.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { checkBothWidths, launchChromium } from '../../helpers/browser.js'
import { consoleBrowserHarness, operatorInBrowser } from '../../helpers/console-browser.js'
import { GOOD_PASSWORD, linkIn, mails } from '../../helpers/portal.js'

const OWNER = 'new-owner@customer.example'

test('closed sign-up and New account in Chromium: every state reads well, at 1100 and 375 px', {
  timeout: 120_000,
}, async (t) => {
  const browser = await launchChromium(t)
  const h = await consoleBrowserHarness(t, { PORTAL_SIGNUP: 'closed' })
  const base = h.baseUrl

  const visitor = await (await browser.newContext()).newPage()
  await visitor.goto(`${base}/portal/signup`)
  await visitor.getByRole('heading', { name: 'Sign-up is closed' }).waitFor()
  assert.equal(await visitor.getByRole('link', { name: 'Sign up' }).count(), 0)
  await checkBothWidths(visitor, 'portal-signup-closed')

  const { page } = await operatorInBrowser(browser, h, 'admin')
  await page.goto(`${base}/console/accounts`)
  await page.getByRole('link', { name: 'New account' }).click()
  await page.getByRole('heading', { name: 'New account' }).waitFor()
  await checkBothWidths(page, 'console-new-account')
  await page.getByLabel("Owner's email").fill('not an address')
  await page.getByLabel('Plan').selectOption('pro')
  // The browser's own check would stop an invalid address before it is sent; the server's answer is the one to see.
  await page.locator('form[action="/console/accounts/new"]').evaluate((f) => f.setAttribute('novalidate', ''))
  await page.getByRole('button', { name: 'Create account and mail the link' }).click()
  await page.getByRole('alert').waitFor()
  assert.equal(await page.getByLabel('Plan').inputValue(), 'pro', 'the choice is kept')
  await checkBothWidths(page, 'console-new-account-refused')
  await page.getByLabel("Owner's email").fill(OWNER)
  await page.getByRole('button', { name: 'Create account and mail the link' }).click()
  await page.getByRole('status').filter({ hasText: 'A link to choose a password' }).waitFor()
  assert.match(await page.locator('main').innerText(), /no password chosen yet/)
  await checkBothWidths(page, 'console-new-account-made')

  const link = new URL(
    linkIn((await mails(h, h.outbox)).findLast((m) => m.includes('/portal/reset/'))!, '/portal/reset/'),
  )
  const owner = await (await browser.newContext()).newPage()
  await owner.goto(`${base}${link.pathname}`)
  await owner
    .getByLabel(/password/i)
    .first()
    .fill(GOOD_PASSWORD)
  await owner
    .getByRole('button')
    .filter({ hasText: /password/i })
    .first()
    .click()
  await owner.getByRole('heading', { name: 'Password changed' }).waitFor()
  await owner.goto(`${base}/portal/login`)
  await owner.getByLabel('Email').fill(OWNER)
  await owner.getByLabel('Password').fill(GOOD_PASSWORD)
  await owner.getByRole('button', { name: 'Log in' }).click()
  await owner.waitForURL(/\/portal\/keys/)
})
