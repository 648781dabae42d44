// The frame of every portal page in Chromium, at desktop (1100 px) and phone (375 px) widths: the product's name,
// the favicon, the footer's links to the API's documents, nothing wider than a phone's screen (a 254-character
// address in the navigation, a 100-character key name), no CSP complaint, and axe-core without a serious or
// critical violation. Screenshots `<page>-desktop` / `<page>-phone` go to PORTAL_SCREENSHOTS when it is set.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Page } from 'playwright-core'
import { launchChromium, screenshot, seriousViolations } from '../../helpers/browser.js'
import { GOOD_PASSWORD, linkIn, mails, portalHarness } from '../../helpers/portal.js'
import { joined } from '../../helpers/portal-team.js'

// 254 characters, the most an address may have: 64 in the local part, labels of at most 63.
const LONG_EMAIL = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(53)}.example`
const LONG_KEY_NAME = `build-server-${'x'.repeat(87)}`
const VIEWPORTS = [
  { suffix: 'desktop', width: 1100, height: 800 },
  { suffix: 'phone', width: 375, height: 800 },
] as const

/** What every page must have, checked at both widths without reloading (a secret is shown only once). */
async function checkFrame(page: Page, name: string): Promise<void> {
  // Folded parts (the usage figures' tables) must fit too.
  await page.evaluate("document.querySelectorAll('details').forEach((details) => { details.open = true })")
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize({ width: viewport.width, height: viewport.height })
    const where = `${name} at ${viewport.width} px`
    assert.match(await page.locator('header.site .brand').innerText(), /Petstore/, `${where}: the product's name`)
    assert.equal(
      await page.locator('link[rel="icon"][type="image/svg+xml"]').getAttribute('href'),
      '/portal/assets/favicon.svg',
      `${where}: the favicon`,
    )
    const footer = page.getByRole('contentinfo')
    assert.equal(
      await footer.getByRole('link', { name: 'API reference' }).getAttribute('href'),
      '/docs',
      `${where}: the API reference`,
    )
    assert.equal(
      await footer.getByRole('link', { name: 'OpenAPI document' }).getAttribute('href'),
      '/v1/openapi.json',
      `${where}: the OpenAPI document`,
    )
    if (viewport.suffix === 'phone') {
      const widths = (await page.evaluate(
        '({ page: document.documentElement.scrollWidth, body: document.body.scrollWidth })',
      )) as { page: number; body: number }
      assert.ok(
        widths.page <= viewport.width && widths.body <= viewport.width,
        `${where}: nothing scrolls sideways (${JSON.stringify(widths)})`,
      )
    }
    assert.deepEqual(await seriousViolations(page), [], `axe on ${where}`)
    await screenshot(page, `${name}-${viewport.suffix}`)
  }
}

test('every portal page has the frame and fits a phone, with a 254-character address and a 100-character key name', {
  timeout: 240_000,
}, async (t) => {
  const browser = await launchChromium(t)
  const h = await portalHarness(t, { listen: true, ownOrigin: true })
  const { outbox } = h
  const base = h.baseUrl
  const path = (link: string) => base + new URL(link).pathname + new URL(link).search

  const context = await browser.newContext({ viewport: VIEWPORTS[0] })
  const page = await context.newPage()
  const problems: string[] = []
  const favicons: number[] = []
  page.on(
    'console',
    (message) => void (/Content Security Policy|Refused to/i.test(message.text()) && problems.push(message.text())),
  )
  page.on('pageerror', (error) => problems.push(error.message))
  page.on(
    'response',
    (response) => void (response.url().endsWith('/portal/assets/favicon.svg') && favicons.push(response.status())),
  )
  const visit = async (url: string, name: string) => {
    await page.goto(`${base}${url}`)
    await checkFrame(page, name)
  }

  // Logged out.
  await visit('/portal/login', 'login')
  await visit('/portal/reset-request', 'reset-request')
  await visit('/portal/verify/nonsense', 'verify-bad-link')
  await visit('/portal/reset/nonsense', 'reset-bad-link')
  await visit('/portal/nope', 'not-found')
  await visit('/portal/signup', 'signup')
  await page.getByLabel('Email').fill(LONG_EMAIL)
  await page.getByLabel('Password').fill(GOOD_PASSWORD)
  await page.getByRole('button', { name: 'Create account' }).click()
  await page.getByRole('heading', { name: 'Check your email' }).waitFor()
  await checkFrame(page, 'check-email')

  // The mailed link, then log in.
  const mail = (await mails(h, outbox)).findLast((m) => m.includes('/portal/verify'))!
  await page.goto(path(linkIn(mail, '/portal/verify')))
  await checkFrame(page, 'verify')
  await page.getByRole('button', { name: 'Verify email address' }).click()
  await page.getByRole('heading', { name: 'Address verified' }).waitFor()
  await checkFrame(page, 'verified')
  if (!(await page.getByRole('button', { name: 'Log out' }).isVisible())) {
    await page.goto(`${base}/portal/login`)
    await page.getByLabel('Email').fill(LONG_EMAIL)
    await page.getByLabel('Password').fill(GOOD_PASSWORD)
    await page.getByRole('button', { name: 'Log in' }).click()
  }

  // Logged in: the navigation holds the whole address, cut to fit.
  await page.getByRole('button', { name: 'Log out' }).waitFor()
  await visit('/portal/keys', 'keys-empty')
  assert.equal(await page.locator('header .who').getAttribute('title'), LONG_EMAIL)
  await visit('/portal/keys/new', 'create-key')
  await page.getByLabel('Key name').fill(LONG_KEY_NAME)
  await page.getByRole('button', { name: 'Create', exact: true }).click()
  await page.locator('#secret').waitFor()
  await checkFrame(page, 'key-created')
  // A few calls, so that the usage page has its figures and tables to fit.
  const secret = (await page.locator('#secret').innerText()).trim()
  for (const url of ['/v1/pets', '/v1/pets', '/v1/pets/999999'])
    await fetch(`${base}${url}`, { headers: { authorization: `Bearer ${secret}` } })
  await h.services.usage.flush()
  const user = (await h.services.portal!.repo.findUserByEmail(LONG_EMAIL))!
  const keyId = (await h.services.accounts.listApiKeys(user.account_id))[0]!.id
  await visit('/portal/keys', 'keys')
  await visit(`/portal/keys/${keyId}/roll`, 'roll-confirm')
  await visit(`/portal/keys/${keyId}/revoke`, 'revoke-confirm')
  await visit('/portal/usage', 'usage')
  await visit(`/portal/usage?key=${keyId}`, 'usage-key')
  await visit('/portal/account', 'account')
  // A member of a second account: the header has the switcher too, its 254-character account name cut to fit.
  await h.services.portal!.repo.createUser({ email: 'team@example.com', passwordHash: 'never used' })
  await joined(h, 'team@example.com', LONG_EMAIL, 'viewer')
  await visit('/portal/keys', 'keys-switcher')
  assert.ok(await page.getByRole('combobox', { name: 'Account' }).isVisible(), 'the account switcher')
  assert.ok(await page.getByRole('button', { name: 'Switch' }).isVisible())
  // A missing page and an error page keep the signed-in navigation.
  await visit('/portal/nope', 'not-found-logged-in')
  assert.ok(await page.getByRole('button', { name: 'Log out' }).isVisible(), 'the 404 page knows the visitor')
  await visit('/portal/keys/key_0/revoke', 'no-such-key')
  await page.getByRole('heading', { name: 'No such key' }).waitFor()
  assert.ok(await page.getByRole('button', { name: 'Log out' }).isVisible(), 'the error page knows the visitor')

  assert.deepEqual(problems, [], 'no CSP complaint or script error on any page')
  // Chromium asks for the icon once and keeps it; every answer it got was the icon.
  assert.ok(
    favicons.length > 0 && favicons.every((status) => status === 200),
    `favicon answers: ${favicons.join(', ')}`,
  )
  const icon = (await page.evaluate(
    "(async () => { const image = new Image(); image.src = '/portal/assets/favicon.svg'; " +
      'await image.decode(); return image.naturalWidth })()',
  )) as number
  assert.ok(icon > 0, 'the favicon is an image the page may show (img-src)')
})
