// Passkeys in Chromium (issue 37), made and used by the browser's virtual authenticator (the DevTools protocol's
// WebAuthn domain: a platform authenticator with user verification that answers at once). A passkey added from the
// account page (the first factor: ten recovery codes), then an authenticator app beside it; "Sign in with a passkey"
// signs in with nothing typed, and "Use a passkey" ends the second step of a password log-in; 16 minutes after
// log-in removing the app asks "Confirm it is you", answered with the passkey; the passkey removed (two-factor
// log-in off again); then adding one 16 minutes later asks for the password and goes on through the "Add a passkey"
// page. Each change is mailed. axe-core finds no serious or critical violation and nothing scrolls sideways at
// 375 px on these pages. Screenshots `passkeys-*` go to PORTAL_SCREENSHOTS when it is set, and `two-factor` (the
// account page's section with an app and a passkey).
//
// The public URL is http://localhost:PORT (HOST=localhost; the listener stays on 127.0.0.1): the relying party id
// comes from it, and Chromium refuses an IP address as one ("SecurityError: This is an invalid domain").
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import type { Locator, Page } from 'playwright-core'
import { totpCode } from '../../../src/modules/sign-in/totp.js'
import { checkBothWidths, launchChromium, pageProblems, signUpInBrowser, VIEWPORTS } from '../../helpers/browser.js'
import { GOOD_PASSWORD, mails, portalHarness } from '../../helpers/portal.js'

const EMAIL = 'passkeys-browser@example.com'
const SIXTEEN_MINUTES = 16 * 60_000

test('passkeys in Chromium: added (recovery codes), sign in alone and at the second step, confirm a change, ' +
  'removed; axe at 1100 and 375 px', {
  timeout: 120_000,
}, async (t) => {
  const browser = await launchChromium(t)
  const h = await portalHarness(t, { listen: true, ownOrigin: true, env: { HOST: 'localhost' } })
  const base = h.config.publicUrl
  assert.match(base, /^http:\/\/localhost:\d+$/)
  const page = await (await browser.newContext({ viewport: VIEWPORTS[0] })).newPage()
  const problems = pageProblems(page)
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('WebAuthn.enable')
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  })
  const credentials = async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials
  const subjects = async () =>
    (await mails(h, h.outbox)).map((m) => /^Subject: (.*)$/m.exec(m)?.[1] ?? '').filter((s) => s !== '')
  const section = page.getByRole('region', { name: 'Two-factor log-in', exact: true })
  const passkeyRow = (name: string) => section.getByRole('row').filter({ hasText: name })
  /** Clicks and waits for the page the click leads to (the previous one may have the same heading). */
  const navigate = async (target: Locator) => {
    const loaded = page.waitForEvent('load')
    await target.click()
    await loaded
  }

  await signUpInBrowser(page, { ...h, baseUrl: base }, h.outbox, EMAIL, GOOD_PASSWORD)

  // Two-factor log-in off; the passkey form is there because the script found WebAuthn.
  await page.goto(`${base}/portal/account`)
  await section.getByText('Two-factor log-in is off.').waitFor()
  await section.getByText('No passkey yet.').waitFor()
  await section.getByRole('button', { name: 'Add a passkey' }).waitFor()
  await checkBothWidths(page, 'passkeys-off')

  // Added within 15 minutes of log-in: no confirmation; the first factor, so the recovery codes follow.
  await section.getByLabel('Passkey name').fill('Test key')
  await navigate(section.getByRole('button', { name: 'Add a passkey' }))
  await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor()
  assert.equal(await page.locator('#recovery-codes li').count(), 10)
  await checkBothWidths(page, 'passkeys-recovery-codes')
  assert.equal((await credentials()).length, 1, 'the authenticator holds the passkey')
  assert.equal((await credentials())[0]!.isResidentCredential, true, 'a discoverable credential')
  assert.ok((await subjects()).includes('Passkey added'))
  await navigate(page.getByRole('link', { name: 'Done' }))
  await section.getByText('Two-factor log-in is on.').waitFor()
  assert.match(await passkeyRow('Test key').innerText(), /never/, 'not used yet')
  await section.getByText('10 of 10 unused').waitFor()

  // An authenticator app beside it: the second factor, so no new recovery codes.
  await navigate(section.getByRole('button', { name: 'Set up authenticator app' }))
  const secret = (await page.locator('#totp-secret').innerText()).replace(/\s/g, '')
  await page.getByRole('textbox', { name: 'Code' }).fill(totpCode(secret, h.clock.now()))
  await navigate(page.getByRole('button', { name: 'Turn on' }))
  await page.getByText('The authenticator app is set up.').waitFor()
  await section.getByText('An authenticator app is set up.').waitFor()
  await checkBothWidths(page, 'passkeys-on')
  await sectionScreenshot(page, section, 'two-factor')

  // Signed in by the passkey alone: nothing typed on the log-in page.
  await navigate(page.getByRole('button', { name: 'Log out', exact: true }))
  await page.getByRole('heading', { name: 'Log in' }).waitFor()
  await navigate(page.getByRole('button', { name: 'Sign in with a passkey' }))
  await page.getByRole('heading', { name: 'API keys' }).waitFor()
  assert.match(await page.locator('header .who').innerText(), new RegExp(EMAIL.replace(/\./g, '\\.')))
  await page.goto(`${base}/portal/account`)
  assert.doesNotMatch(await passkeyRow('Test key').innerText(), /never/, 'its last use is shown')

  // A password log-in asks for the second factor; "Use a passkey" gives it.
  await navigate(page.getByRole('button', { name: 'Log out', exact: true }))
  await page.getByLabel('Email').fill(EMAIL)
  await page.getByLabel('Password').fill(GOOD_PASSWORD)
  await navigate(page.getByRole('button', { name: 'Log in', exact: true }))
  await page.getByRole('heading', { name: 'Two-factor log-in' }).waitFor()
  await navigate(page.getByRole('button', { name: 'Use a passkey' }))
  await page.getByRole('heading', { name: 'API keys' }).waitFor()

  // 16 minutes later, removing the app asks to confirm; the passkey confirms, and the removal goes on.
  h.clock.advance(SIXTEEN_MINUTES)
  await page.goto(`${base}/portal/account`)
  await navigate(section.getByRole('button', { name: 'Remove authenticator app' }))
  await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor()
  await page.getByText('To remove the authenticator app, confirm it is you.').waitFor()
  await page.getByRole('textbox', { name: 'Code' }).waitFor()
  await checkBothWidths(page, 'passkeys-sudo')
  const confirmed = page.waitForURL(/\/portal\/account\?done=app-removed$/)
  await page.getByRole('button', { name: 'Confirm with a passkey' }).click()
  await confirmed
  await page.getByText('The authenticator app was removed.').waitFor()
  assert.ok((await subjects()).includes('Authenticator app removed'))

  // The passkey removed (the confirmation is fresh): two-factor log-in off again.
  assert.equal(await section.getByText('It is your only second factor').count(), 1, 'the page warned')
  await navigate(section.getByRole('button', { name: 'Remove passkey Test key' }))
  await page.getByText('The passkey was removed.').waitFor()
  assert.equal(await passkeyRow('Test key').count(), 0)
  await section.getByText('No passkey yet.').waitFor()
  await section.getByText('Two-factor log-in is off.').waitFor()
  assert.ok((await subjects()).includes('Passkey removed'))

  // 16 minutes later, adding one asks for the password (no second factor left), keeps the name, and the "Add a
  // passkey" page makes it.
  h.clock.advance(SIXTEEN_MINUTES)
  await page.goto(`${base}/portal/account`)
  await section.getByLabel('Passkey name').fill('Work laptop')
  await navigate(section.getByRole('button', { name: 'Add a passkey' }))
  await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor()
  await page.getByText('To add a passkey, confirm it is you.').waitFor()
  assert.equal(await page.getByRole('button', { name: 'Confirm with a passkey' }).count(), 0)
  await checkBothWidths(page, 'passkeys-sudo-password')
  await page.getByLabel('Password').fill(GOOD_PASSWORD)
  await page.getByRole('button', { name: 'Confirm', exact: true }).click()
  await page.getByRole('heading', { name: 'Add a passkey' }).waitFor()
  await page.getByRole('button', { name: 'Create passkey' }).waitFor()
  await checkBothWidths(page, 'passkeys-add')
  await navigate(page.getByRole('button', { name: 'Create passkey' }))
  await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor()
  await navigate(page.getByRole('link', { name: 'Done' }))
  await passkeyRow('Work laptop').waitFor()
  assert.equal((await subjects()).filter((s) => s === 'Passkey added').length, 2)
  assert.deepEqual(problems, [], 'no script error, nothing blocked by the CSP')
})

/** A picture of one element and a margin around it (the account page's section) for the README, like `screenshot`. */
async function sectionScreenshot(page: Page, target: Locator, name: string): Promise<void> {
  const dir = process.env.PORTAL_SCREENSHOTS
  if (!dir) return
  mkdirSync(dir, { recursive: true })
  await page.evaluate('window.scrollTo(0, 0)')
  const box = (await target.boundingBox())!
  const margin = 16
  const clip = { x: box.x - margin, y: box.y - margin, width: box.width + 2 * margin, height: box.height + 2 * margin }
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true, clip })
}
