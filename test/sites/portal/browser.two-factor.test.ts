// The authenticator app in Chromium (issue 37), its codes computed from the secret the enrolment page shows and the
// harness's clock: enrolment (a QR code, the secret in groups of four, a wrong code refused, then the ten recovery
// codes); a key made within 15 minutes of log-in without a confirmation, and 16 minutes later "Confirm it is you"
// answered with a code, the key then made with the name typed before; a password log-in's second step taking a code,
// refusing it replayed, taking a recovery code once; the 10th wrong code locking the step (mailed) and the 11th
// refused though right. axe-core finds no serious or critical violation and nothing scrolls sideways at 375 px on
// these pages. Screenshots `two-factor-*` go to PORTAL_SCREENSHOTS when it is set.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Locator, Response } from 'playwright-core'
import { totpCode } from '../../../src/modules/sign-in/totp.js'
import { checkBothWidths, launchChromium, pageProblems, signUpInBrowser, VIEWPORTS } from '../../helpers/browser.js'
import { GOOD_PASSWORD, mails, portalHarness } from '../../helpers/portal.js'

const EMAIL = 'two-factor-browser@example.com'
const SIXTEEN_MINUTES = 16 * 60_000
const NEXT_CODE = 31_000
const WRONG = 'That code is not right (or was already used). Try the next code your app shows.'
const LOCKED = /^Too many wrong codes: two-factor log-in is locked until 2027-01-01 \d\d:\d\d UTC\.$/

test('authenticator app in Chromium: enrolment, sudo with a code keeping the form, log-in codes once, recovery ' +
  'code once, locked at the 10th wrong code; axe at 1100 and 375 px', {
  timeout: 120_000,
}, async (t) => {
  const browser = await launchChromium(t)
  const h = await portalHarness(t, { listen: true, ownOrigin: true })
  const base = h.baseUrl
  const page = await (await browser.newContext({ viewport: VIEWPORTS[0] })).newPage()
  const problems = pageProblems(page)
  const subjects = async () =>
    (await mails(h, h.outbox)).map((m) => /^Subject: (.*)$/m.exec(m)?.[1] ?? '').filter((s) => s !== '')
  const section = page.getByRole('region', { name: 'Two-factor log-in', exact: true })
  const codeField = page.getByRole('textbox', { name: 'Code' })
  const alert = () => page.getByRole('alert')
  /** Clicks and waits for the page the click leads to (the previous one may have the same heading); its answer. */
  const navigate = async (target: Locator): Promise<Response> => {
    const loaded = page.waitForEvent('load')
    const answered = page.waitForResponse((r) => r.request().isNavigationRequest() && r.frame() === page.mainFrame())
    await target.click()
    const [response] = await Promise.all([answered, loaded])
    return response
  }
  const logOut = async () => {
    await navigate(page.getByRole('button', { name: 'Log out', exact: true }))
    await page.getByRole('heading', { name: 'Log in' }).waitFor()
  }
  /** A right password: the second step. */
  const passwordStep = async () => {
    await page.goto(`${base}/portal/login`)
    await page.getByLabel('Email').fill(EMAIL)
    await page.getByLabel('Password').fill(GOOD_PASSWORD)
    await navigate(page.getByRole('button', { name: 'Log in', exact: true }))
    await page.getByRole('heading', { name: 'Two-factor log-in' }).waitFor()
    assert.equal(await page.getByRole('button', { name: 'Use a passkey' }).count(), 0, 'no passkey: no such button')
  }
  const enterCode = async (code: string) => {
    await codeField.fill(code)
    return navigate(page.getByRole('button', { name: 'Verify' }))
  }

  const accountId = await signUpInBrowser(page, h, h.outbox, EMAIL, GOOD_PASSWORD)

  // Enrolment: the QR code and the secret; a wrong code is refused on the same page, the right one turns it on.
  await page.goto(`${base}/portal/account`)
  await navigate(section.getByRole('button', { name: 'Set up authenticator app' }))
  await page.getByRole('heading', { name: 'Set up an authenticator app' }).waitFor()
  await page.getByRole('img', { name: /QR code/ }).waitFor()
  const shown = (await page.locator('#totp-secret').innerText()).trim()
  assert.match(shown, /^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/, 'the secret in groups of four')
  const secret = shown.replace(/ /g, '')
  await checkBothWidths(page, 'two-factor-authenticator')
  await codeField.fill(wrongCode(secret, h.clock.now()))
  assert.equal((await navigate(page.getByRole('button', { name: 'Turn on' }))).status(), 400)
  await page.getByText('That code is not right. Enter the code your app shows now.').waitFor()
  await checkBothWidths(page, 'two-factor-authenticator-refused')
  await codeField.fill(totpCode(secret, h.clock.now()))
  await navigate(page.getByRole('button', { name: 'Turn on' }))
  await page.getByRole('heading', { name: 'Your recovery codes' }).waitFor()
  const recoveryCodes = await page.locator('#recovery-codes li').allInnerTexts()
  assert.equal(recoveryCodes.length, 10)
  for (const code of recoveryCodes) assert.match(code, /^[0-9a-z]{5}-[0-9a-z]{5}$/)
  await checkBothWidths(page, 'two-factor-recovery-codes')
  assert.ok((await subjects()).includes('Authenticator app added'))
  await navigate(page.getByRole('link', { name: 'Done' }))
  await section.getByText('Two-factor log-in is on.').waitFor()
  await section.getByText('10 of 10 unused').waitFor()
  assert.ok(!(await page.content()).includes(secret), 'the secret is not shown again')

  // Within 15 minutes of log-in a key is made without a confirmation.
  const keyNames = async () => (await h.services.accounts.listApiKeys(accountId)).map((k) => k.name)
  await page.goto(`${base}/portal/keys/new`)
  await page.getByLabel('Key name').fill('made at once')
  await navigate(page.getByRole('button', { name: 'Create', exact: true }))
  await page.waitForURL(/\/portal\/keys\/key_[0-9a-f]+\/created$/)
  assert.deepEqual(await keyNames(), ['made at once'])

  // 16 minutes later: "Confirm it is you" (a code, not the password), a wrong code refused, a right one; the form
  // typed before goes on and makes the key.
  h.clock.advance(SIXTEEN_MINUTES)
  await page.goto(`${base}/portal/keys/new`)
  await page.getByLabel('Key name').fill('typed before the confirmation')
  assert.equal((await navigate(page.getByRole('button', { name: 'Create', exact: true }))).status(), 403)
  await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor()
  await page.getByText('To create a key, confirm it is you.').waitFor()
  assert.equal(await page.getByLabel('Password').count(), 0, 'with a second factor, the password does not confirm')
  await checkBothWidths(page, 'two-factor-sudo')
  await codeField.fill(wrongCode(secret, h.clock.now()))
  assert.equal((await navigate(page.getByRole('button', { name: 'Confirm', exact: true }))).status(), 400)
  assert.equal(await alert().innerText(), WRONG)
  await codeField.fill(totpCode(secret, h.clock.now()))
  const created = page.waitForURL(/\/portal\/keys\/key_[0-9a-f]+\/created$/)
  await page.getByRole('button', { name: 'Confirm', exact: true }).click()
  await created
  assert.equal(await page.locator('.key-name').innerText(), 'typed before the confirmation')
  assert.deepEqual((await keyNames()).sort(), ['made at once', 'typed before the confirmation'])

  // Log-in: the password, then a code.
  await logOut()
  h.clock.advance(NEXT_CODE)
  await passwordStep()
  await checkBothWidths(page, 'two-factor-login-code')
  const code = totpCode(secret, h.clock.now())
  await enterCode(code)
  await page.getByRole('heading', { name: 'API keys' }).waitFor()

  // The same code again is refused; a recovery code signs in, once.
  await logOut()
  await passwordStep()
  assert.equal((await enterCode(code)).status(), 400)
  assert.equal(await alert().innerText(), WRONG)
  await checkBothWidths(page, 'two-factor-login-code-refused')
  await enterCode(recoveryCodes[0]!)
  await page.getByRole('heading', { name: 'API keys' }).waitFor()
  assert.ok((await subjects()).includes('Recovery code used'))
  await page.goto(`${base}/portal/account`)
  await section.getByText('9 of 10 unused').waitFor()
  await logOut()
  await passwordStep()
  assert.equal((await enterCode(recoveryCodes[0]!)).status(), 400, 'a recovery code works once')
  assert.equal(await alert().innerText(), WRONG)

  // Later (the wrong codes above out of the window): the 10th wrong code locks the step, and the owner is mailed;
  // the 11th is refused even though it is right.
  h.clock.advance(SIXTEEN_MINUTES)
  await passwordStep()
  const wrong = wrongCode(secret, h.clock.now())
  for (let i = 1; i <= 9; i++) {
    assert.equal((await enterCode(wrong)).status(), 400, `wrong code ${i}`)
    assert.equal(await alert().innerText(), WRONG)
  }
  assert.ok(!(await subjects()).includes('Two-factor log-in locked'))
  assert.equal((await enterCode(wrong)).status(), 400)
  const tenth = await alert().innerText()
  assert.match(tenth, /^Too many wrong codes: two-factor log-in is locked until .* UTC\. We mailed you\.$/)
  assert.ok((await subjects()).includes('Two-factor log-in locked'))
  assert.equal((await enterCode(totpCode(secret, h.clock.now()))).status(), 429, 'the 11th: refused though right')
  assert.match(await alert().innerText(), LOCKED)
  await checkBothWidths(page, 'two-factor-login-locked')
  await page.goto(`${base}/portal/keys`)
  await page.getByRole('heading', { name: 'Log in' }).waitFor()
  assert.deepEqual(problems, [], 'no script error, nothing blocked by the CSP')
})

/** A 6-digit code the app does not show around `now` (the previous, the current or the next 30 s). */
function wrongCode(secret: string, now: number): string {
  const near = new Set([-30_000, 0, 30_000].map((d) => totpCode(secret, now + d)))
  for (let n = 100_000; ; n++) if (!near.has(String(n))) return String(n)
}
