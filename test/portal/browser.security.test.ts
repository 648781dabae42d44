// Issue 23's takeover and mail items in Chromium, as a person meets them: a mailed link copied raw out of the
// .eml file (16) that names the configured origin (1); an address list refused by the form (3); a sign-up in
// someone else's name loses its session when the owner signs up (4); a logged-out visitor returns to the page
// they opened (15). Runs in both passes (SQLite, PostgreSQL + Redis). Every page: axe, desktop and phone widths.
import assert from 'node:assert/strict'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { launchChromium, screenshot, seriousViolations } from '../helpers/browser.js'
import { portalHarness } from '../helpers/portal.js'

const PASSWORD = 'violet-harbor-quartz-lantern'

/** The newest mail in the outbox, as raw bytes on disk (what a person copies a link out of). */
async function newestMail(app: { portal?: { mailer: { settled(): Promise<void> } } }, outbox: string): Promise<string> {
  await app.portal!.mailer.settled()
  const names = (await readdir(outbox)).filter((n) => n.endsWith('.eml')).sort()
  return readFile(join(outbox, names.at(-1)!), 'latin1')
}

async function checked(page: Page, name: string): Promise<void> {
  for (const [width, suffix] of [[1100, 'desktop'], [375, 'phone']] as const) {
    await page.setViewportSize({ width, height: 800 })
    assert.deepEqual(await seriousViolations(page), [], `axe on ${name} at ${width} px`)
    const scrollWidth = (await page.evaluate('document.documentElement.scrollWidth')) as number
    assert.ok(scrollWidth <= width, `${name} does not scroll sideways at ${width} px (${scrollWidth})`)
    await screenshot(page, `security-${name}-${suffix}`)
  }
  await page.setViewportSize({ width: 1100, height: 800 })
}

async function signUp(browser: Browser, base: string, email: string, password: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1100, height: 800 } })).newPage()
  await page.goto(`${base}/portal/signup`)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Create account' }).click()
  await page.getByRole('heading', { name: 'Check your email' }).waitFor()
  return page
}

test('in Chromium: raw mail links, one mailbox per field, no foothold from a sign-up in another name, return to the page', { timeout: 240_000 }, async (t) => {
  const browser = await launchChromium(t)
  const h = await portalHarness(t, { listen: true, ownOrigin: true })
  const { outbox } = h
  const base = h.baseUrl
  assert.equal(h.config.publicUrl, base, 'no PETSTORE_PUBLIC_URL: the listener\'s own origin')

  // 3. An address list is refused by the form, and nothing is mailed.
  const page = await (await browser.newContext({ viewport: { width: 1100, height: 800 } })).newPage()
  await page.goto(`${base}/portal/signup`)
  await page.getByLabel('Email').fill('someone@example.com,b@evil.example')
  await page.getByLabel('Password').fill(PASSWORD)
  // The browser's own check of type=email would stop the form first: the server's rule is what is tested.
  await page.locator('form').evaluate((form) => form.setAttribute('novalidate', ''))
  await page.getByRole('button', { name: 'Create account' }).click()
  await page.getByRole('alert').filter({ hasText: 'single address' }).waitFor()
  await checked(page, 'signup-address-list')

  // 4. An attacker signed up in the victim's name and logged in (unverified accounts may log in).
  const attacker = await signUp(browser, base, 'victim@example.com', 'attacker-chosen-harbor-lantern')
  await attacker.goto(`${base}/portal/login`)
  await attacker.getByLabel('Email').fill('victim@example.com')
  await attacker.getByLabel('Password').fill('attacker-chosen-harbor-lantern')
  await attacker.getByRole('button', { name: 'Log in' }).click()
  await attacker.getByRole('heading', { name: 'API keys' }).waitFor()
  h.clock.advance(2 * 60_000)
  const victim = await signUp(browser, base, 'victim@example.com', PASSWORD)

  // 16 and 1. The victim's link, copied out of the raw .eml file, works as it is and names the configured origin.
  const raw = await newestMail(h.app, outbox)
  assert.match(raw, /^Content-Transfer-Encoding: 7bit\r?$/m)
  const line = raw.split(/\r?\n/).find((l) => l.startsWith('http'))!
  assert.ok(line.startsWith(`${base}/portal/verify/`), line)
  await victim.goto(line)
  await checked(victim, 'verify-from-raw-link')
  await victim.getByRole('button', { name: 'Verify email address' }).click()
  await victim.getByRole('heading', { name: 'Address verified' }).waitFor()
  await checked(victim, 'verified')

  // The attacker's session ended: the next page asks them to log in, and their password no longer works.
  await attacker.reload()
  await attacker.getByRole('heading', { name: 'Log in' }).waitFor()
  await attacker.getByLabel('Email').fill('victim@example.com')
  await attacker.getByLabel('Password').fill('attacker-chosen-harbor-lantern')
  await attacker.getByRole('button', { name: 'Log in' }).click()
  await attacker.getByRole('alert').filter({ hasText: 'Email or password is incorrect' }).waitFor()

  // 15. Logged out, the victim opens the usage page, logs in, and is back on it.
  await victim.goto(`${base}/portal/usage?utm_source=newsletter`)
  await victim.getByRole('heading', { name: 'Log in' }).waitFor()
  assert.match(victim.url(), /\/portal\/login\?next=%2Fportal%2Fusage/)
  await checked(victim, 'login-with-next')
  await victim.getByLabel('Email').fill('victim@example.com')
  await victim.getByLabel('Password').fill(PASSWORD)
  await victim.getByRole('button', { name: 'Log in' }).click()
  await victim.getByRole('heading', { name: 'Usage' }).waitFor()
  assert.match(victim.url(), /\/portal\/usage\?utm_source=newsletter$/)
})
