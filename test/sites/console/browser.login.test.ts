// An operator's first day in Chromium: created by the real CLI (`petstore operators create --json`), set up on the
// setup pages (the password first, then the TOTP secret made for this browser read from the page, a code computed
// from it, the QR code shown), the recovery codes shown once; log-in with the keyboard alone and a current code, a
// replayed code refused, log-in with a recovery code (used up by it), a wrong code refused; every page without a
// serious axe violation; the log-ins and failures on record in /console/audit and in `petstore audit list --json`.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { launchChromium } from '../../helpers/browser.js'
import {
  accessible,
  consoleBrowserHarness,
  operatorByCli,
  setUpInBrowser,
  submitLogIn,
  totp,
} from '../../helpers/console-browser.js'
import { OPERATOR_PASSWORD } from '../../helpers/console.js'

const EMAIL = 'grace@ops.example'
const FAILED = 'Email, password or code is incorrect.'

test('an operator made by the CLI sets up TOTP in Chromium, ' +
  'logs in with a code and a recovery code; replays are refused', {
  timeout: 120_000,
}, async (t) => {
  const browser = await launchChromium(t)
  const h = await consoleBrowserHarness(t)
  const base = h.baseUrl
  const created = await operatorByCli(h, EMAIL, 'admin')
  const page = await (await browser.newContext({ viewport: { width: 1100, height: 900 } })).newPage()

  // Setup: the password; then the secret as text and as a QR code, and a current code.
  const { secret, recoveryCodes } = await setUpInBrowser(page, h, created.setupLink, OPERATOR_PASSWORD, (p, form) =>
    accessible(p, form === 'password' ? 'console-setup-password' : 'console-setup'),
  )
  await accessible(page, 'console-recovery-codes')
  assert.ok(
    recoveryCodes.every((c) => /^[0-9a-z]{5}-[0-9a-z]{5}$/.test(c)),
    recoveryCodes.join(' '),
  )
  // The link is used up.
  await page.goto(created.setupLink)
  await page.getByRole('alert').filter({ hasText: 'This setup link has expired or was already used.' }).waitFor()

  // The code the setup used is spent: logging in with it, in the same 30 s, is refused.
  const setupCode = totp(secret, h.clock.now())
  await submitLogIn(page, h, { email: EMAIL, password: OPERATOR_PASSWORD }, setupCode)
  await page.getByRole('alert').filter({ hasText: FAILED }).waitFor()

  // Log-in with the keyboard alone: Email has the focus, Tab to Password, Tab to Code, Enter sends.
  h.clock.advance(30_000)
  const code = totp(secret, h.clock.now())
  await page.goto(`${base}/console/login`)
  await page.getByRole('heading', { name: 'Log in' }).waitFor()
  await accessible(page, 'console-login')
  await page.keyboard.type(EMAIL)
  await page.keyboard.press('Tab')
  await page.keyboard.type(OPERATOR_PASSWORD)
  await page.keyboard.press('Tab')
  await page.keyboard.type(code)
  await page.keyboard.press('Enter')
  await page.getByRole('heading', { name: 'Overview' }).waitFor()
  assert.match(
    await page.getByRole('navigation', { name: 'Console' }).innerText(),
    new RegExp(`${EMAIL}[\\s\\S]*admin`),
  )

  // Log out; the same code again (still its 30 s) is refused: a code is accepted once.
  await page.getByRole('button', { name: 'Log out' }).click()
  await page.getByRole('heading', { name: 'Log in' }).waitFor()
  await page.goto(`${base}/console`)
  await page.getByRole('heading', { name: 'Log in' }).waitFor()
  await submitLogIn(page, h, { email: EMAIL, password: OPERATOR_PASSWORD }, code)
  await page.getByRole('alert').filter({ hasText: FAILED }).waitFor()
  await accessible(page, 'console-login-failed')

  // A recovery code logs in once.
  await submitLogIn(page, h, { email: EMAIL, password: OPERATOR_PASSWORD }, recoveryCodes[3]!)
  await page.getByRole('heading', { name: 'Overview' }).waitFor()
  await page.getByRole('button', { name: 'Log out' }).click()
  await page.getByRole('heading', { name: 'Log in' }).waitFor()
  await submitLogIn(page, h, { email: EMAIL, password: OPERATOR_PASSWORD }, recoveryCodes[3]!)
  await page.getByRole('alert').filter({ hasText: FAILED }).waitFor()

  // A wrong password with the next code: refused, and the code is not used up by it.
  h.clock.advance(30_000)
  const next = totp(secret, h.clock.now())
  await submitLogIn(page, h, { email: EMAIL, password: 'not the password at all' }, next)
  await page.getByRole('alert').filter({ hasText: FAILED }).waitFor()
  await submitLogIn(page, h, { email: EMAIL, password: OPERATOR_PASSWORD }, next)
  await page.getByRole('heading', { name: 'Overview' }).waitFor()

  // On record: the creation by the CLI, the setup, three log-ins and four failures, newest first.
  await page.goto(`${base}/console/audit?actor=${encodeURIComponent(EMAIL)}`)
  await page.getByRole('heading', { name: 'Audit log' }).waitFor()
  const actions = await page.locator('table.audit tbody th[scope=row]').allInnerTexts()
  assert.deepEqual(
    actions.filter((a) => a.startsWith('operator.login')),
    [
      'operator.login',
      'operator.login_failed',
      'operator.login_failed',
      'operator.login',
      'operator.login_failed',
      'operator.login',
      'operator.login_failed',
    ],
  )
  const listed = await h.cliJson<{
    events: Array<{
      action: string
      actor: { kind: string; id: string | null; email: string | null }
      changes: Record<string, unknown> | null
    }>
  }>(['audit', 'list'])
  const byCli = listed.events.find((e) => e.action === 'operator.created')!
  assert.equal(byCli.actor.kind, 'cli')
  assert.deepEqual(byCli.changes, { after: { email: EMAIL, role: 'admin' } })
  const logins = listed.events.filter((e) => e.action === 'operator.login')
  assert.deepEqual(
    logins.map((e) => e.changes?.method),
    ['totp', 'recovery_code', 'totp'],
  )
  assert.equal(logins[1]!.changes?.recoveryCodesLeft, 9)
  assert.ok(logins.every((e) => e.actor.email === EMAIL))
  const failures = listed.events.filter((e) => e.action === 'operator.login_failed').map((e) => e.changes?.failed)
  assert.deepEqual(failures, ['password', 'code', 'code', 'code'])
  // No secret anywhere in what the CLI prints.
  const text = JSON.stringify(listed)
  assert.ok(!text.includes(secret) && !recoveryCodes.some((c) => text.includes(c)) && !text.includes(OPERATOR_PASSWORD))
})
