// Issue 23's takeover and mail items in Chromium, as a person meets them: a mailed link copied raw out of the
// .eml file (16) that names the configured origin (1); an address list refused by the form (3); a sign-up in
// someone else's name loses its session when the owner signs up (4); a logged-out visitor returns to the page
// they opened (15). And issue 32's pre-hijacking sequence, end to end. Every page: axe, desktop and phone widths.
import assert from 'node:assert/strict'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { launchChromium, screenshot, seriousViolations } from '../../helpers/browser.js'
import { portalHarness } from '../../helpers/portal.js'

const PASSWORD = 'violet-harbor-quartz-lantern'

/** The newest mail in the outbox, as raw bytes on disk (what a person copies a link out of). */
async function newestMail(
  services: { portal?: { mailer: { settled(): Promise<void> } } },
  outbox: string,
): Promise<string> {
  await services.portal!.mailer.settled()
  const names = (await readdir(outbox)).filter((n) => n.endsWith('.eml')).sort()
  return readFile(join(outbox, names.at(-1)!), 'latin1')
}

async function checked(page: Page, name: string): Promise<void> {
  for (const [width, suffix] of [
    [1100, 'desktop'],
    [375, 'phone'],
  ] as const) {
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

test('in Chromium: raw mail links, one mailbox per field, ' +
  'no foothold from a sign-up in another name, return to the page', {
  timeout: 240_000,
}, async (t) => {
  const browser = await launchChromium(t)
  const h = await portalHarness(t, { listen: true, ownOrigin: true })
  const { outbox } = h
  const base = h.baseUrl
  assert.equal(h.config.publicUrl, base, "no PETSTORE_PUBLIC_URL: the listener's own origin")

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
  const raw = await newestMail(h.services, outbox)
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

async function logIn(page: Page, base: string, email: string, password: string, landing = 'API keys'): Promise<void> {
  await page.goto(`${base}/portal/login`)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Log in' }).click()
  await page.getByRole('heading', { name: landing }).waitFor()
}

test('in Chromium: pre-hijacking (issue 32): ' +
  'no change of address before verifying, and no earlier link survives the owner', {
  timeout: 240_000,
}, async (t) => {
  const browser = await launchChromium(t)
  const h = await portalHarness(t, { listen: true, ownOrigin: true })
  const base = h.baseUrl
  const attacker = await signUp(browser, base, 'victim@example.com', 'attacker-chosen-harbor-lantern')
  await logIn(attacker, base, 'victim@example.com', 'attacker-chosen-harbor-lantern')

  // The account page offers no change of address; a forged form post (with a real CSRF token) is refused.
  await attacker.goto(`${base}/portal/account`)
  await attacker.getByText('not verified yet').first().waitFor()
  assert.equal(await attacker.getByLabel('New email').count(), 0)
  await checked(attacker, 'account-unverified')
  // The form the page no longer offers, posted from the page with its real CSRF token (as a script on it could).
  const csrf = await attacker.locator('input[name=_csrf]').first().inputValue()
  const fields = { _csrf: csrf, new_email: 'attacker@evil.example', password: 'attacker-chosen-harbor-lantern' }
  await attacker.evaluate(
    `(() => {
    const form = Object.assign(document.createElement('form'), { method: 'post', action: '/portal/account/email' })
    for (const [name, value] of Object.entries(${JSON.stringify(fields)})) ` +
      `form.append(Object.assign(document.createElement('input'), { type: 'hidden', name, value }))
    document.body.append(form)
    form.submit()
  })()`,
  )
  await attacker.getByRole('alert').filter({ hasText: 'not verified yet' }).waitFor()
  await h.services.portal!.mailer.settled()
  const sent = await Promise.all((await readdir(h.outbox)).map((n) => readFile(join(h.outbox, n), 'latin1')))
  assert.ok(!sent.some((m) => m.includes('attacker@evil.example')), 'no mail to the attacker')

  // A change-of-address link as an earlier version mailed it: the attacker keeps its confirmation page open.
  const squatter = await h.services.portal!.repo.findUserByEmail('victim@example.com')
  const token = await h.services.portal!.settings.issueEmailToken(squatter!.id, 'attacker@evil.example', 24 * 3600_000)
  await attacker.goto(`${base}/portal/account/email/${token}`)
  await attacker.getByRole('button', { name: 'Confirm new address' }).waitFor()

  // The owner signs up, verifies from the mailed link and creates a production key.
  h.clock.advance(2 * 60_000)
  const victim = await signUp(browser, base, 'victim@example.com', PASSWORD)
  const line = (await newestMail(h.services, h.outbox)).split(/\r?\n/).find((l) => l.startsWith('http'))!
  await victim.goto(line)
  await victim.getByRole('button', { name: 'Verify email address' }).click()
  await victim.getByRole('heading', { name: 'Address verified' }).waitFor()
  await logIn(victim, base, 'victim@example.com', PASSWORD)
  await victim.getByRole('button', { name: 'Create key' }).click()
  await victim.getByLabel('Key name').fill('production')
  await victim.getByRole('button', { name: 'Create', exact: true }).click()
  await victim.locator('#secret').waitFor()

  // The attacker confirms the old link (their session ended with the owner's sign-up, so the open form is refused
  // as a cross-site post), then opens it again: it is dead, and the account keeps its address and its owner.
  await attacker.getByRole('button', { name: 'Confirm new address' }).click()
  await attacker.waitForLoadState()
  assert.doesNotMatch(await attacker.content(), /Address changed/)
  await attacker.goto(`${base}/portal/account/email/${token}`)
  await attacker.getByRole('alert').filter({ hasText: 'expired or was already used' }).waitFor()
  await checked(attacker, 'old-email-link-void')
  assert.equal((await h.services.portal!.repo.findUserByEmail('victim@example.com'))?.id, squatter!.id)
  assert.equal(await h.services.portal!.repo.findUserByEmail('attacker@evil.example'), undefined)
  const fresh = await (await browser.newContext()).newPage()
  await logIn(fresh, base, 'victim@example.com', PASSWORD)
})
