// The whole journey in Chromium, as an integrator would take it: sign up, open the mailed link, log in, create a
// key, call the API with it, see the call on the usage page, roll with a grace period, revoke, log out; then
// the refusals (enumeration, throttling, CSRF from another origin, an expired link, a common password). Every
// page is checked with axe-core; screenshots go to PORTAL_SCREENSHOTS when it is set.
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import type { Page } from 'playwright-core'
import { launchChromium, screenshot, seriousViolations } from '../../helpers/browser.js'
import { GOOD_PASSWORD, linkIn, mails, portalHarness } from '../../helpers/portal.js'

const EMAIL = 'ada@example.com'

test('an integrator signs up, manages keys and sees usage in Chromium; the refusals hold', {
  timeout: 240_000,
}, async (t) => {
  const browser = await launchChromium(t)
  const h = await portalHarness(t, { listen: true, ownOrigin: true })
  const { outbox } = h
  const base = h.baseUrl
  const api = (key: string) => fetch(`${base}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })
  const lastLink = async (path: string) => linkIn((await mails(h, outbox)).findLast((m) => m.includes(path))!, path)

  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } })
  const page = await context.newPage()
  const cspErrors: string[] = []
  page.on(
    'console',
    (message) => void (/Content Security Policy/i.test(message.text()) && cspErrors.push(message.text())),
  )
  const accessible = async (p: Page, name: string) => {
    assert.deepEqual(await seriousViolations(p), [], `axe on ${name}`)
    await screenshot(p, name)
  }

  // Sign up.
  await page.goto(`${base}/portal/signup`)
  await accessible(page, 'signup')
  await page.getByLabel('Email').fill(EMAIL)
  await page.getByLabel('Password').fill(GOOD_PASSWORD)
  await page.getByRole('button', { name: 'Create account' }).click()
  await page.getByRole('heading', { name: 'Check your email' }).waitFor()
  await accessible(page, 'check-email')

  // The link from the mail file.
  await page.goto(await lastLink('/portal/verify'))
  await accessible(page, 'verify')
  await page.getByRole('button', { name: 'Verify email address' }).click()
  await page.getByRole('heading', { name: 'Address verified' }).waitFor()

  // Log in with the keyboard alone: the Email field has the focus, Tab moves to Password, Enter submits.
  await page.goto(`${base}/portal/login`)
  await accessible(page, 'login')
  await page.keyboard.type(EMAIL)
  await page.keyboard.press('Tab')
  await page.keyboard.type(GOOD_PASSWORD)
  await page.keyboard.press('Enter')
  await page.getByRole('heading', { name: 'API keys' }).waitFor()
  await accessible(page, 'keys-empty')

  // Create a key; the secret is shown once.
  await page.getByRole('button', { name: 'Create key' }).click()
  await page.getByLabel('Key name').fill('ci server')
  await accessible(page, 'create-key')
  await page.getByRole('button', { name: 'Create', exact: true }).click()
  const first = (await page.locator('#secret').textContent())!.trim()
  assert.match(first, /^ps_test_[\w-]{43}$/)
  assert.ok(
    await page.getByRole('button', { name: 'Copy', exact: true }).isVisible(),
    'the script showed the copy button',
  )
  await accessible(page, 'key-created')
  assert.equal((await api(first)).status, 200)

  // The call on the usage page.
  await h.services.usage.flush()
  await page.goto(`${base}/portal/usage`)
  const perMinute = page.getByRole('img', { name: 'Requests per minute' })
  assert.match((await perMinute.getAttribute('aria-describedby'))!, /minute-desc/)
  assert.match((await page.locator('#minute-desc').textContent())!, /: 1 admitted, 0 refused\./)
  assert.match((await page.locator('#day-desc').textContent())!, /: 1 admitted, 0 refused\./)
  await page.getByRole('img', { name: 'Requests per day' }).waitFor()
  assert.match(await page.locator('main').innerText(), /free/)
  await accessible(page, 'usage')

  // Roll with a grace period of 1 hour: both secrets work.
  await page.goto(`${base}/portal/keys`)
  await accessible(page, 'keys')
  await page
    .getByRole('row', { name: /ci server/ })
    .getByRole('button', { name: 'Roll' })
    .click()
  await page.getByLabel('Grace period').selectOption({ label: '1 hour' })
  await accessible(page, 'roll-confirm')
  await page.getByRole('button', { name: 'Roll key' }).click()
  const second = (await page.locator('#secret').textContent())!.trim()
  assert.notEqual(second, first)
  assert.equal((await api(first)).status, 200, 'the old key works during the grace period')
  assert.equal((await api(second)).status, 200)

  // Revoke the new key: refused from the next request on.
  await page.goto(`${base}/portal/keys`)
  const rows = page.getByRole('row', { name: /ci server/ })
  assert.equal(await rows.count(), 2)
  await rows
    .filter({ hasText: second.slice(0, 12) })
    .getByRole('button', { name: 'Revoke' })
    .click()
  await accessible(page, 'revoke-confirm')
  await page.getByRole('button', { name: 'Revoke key' }).click()
  await page.getByRole('heading', { name: 'API keys' }).waitFor()
  const refused = await api(second)
  assert.equal(refused.status, 401)
  assert.equal(((await refused.json()) as { code: string }).code, 'invalid_api_key')

  // Log out.
  await page.getByRole('button', { name: 'Log out' }).click()
  await page.getByRole('heading', { name: 'Log in' }).waitFor()
  await page.goto(`${base}/portal/keys`)
  await page.getByRole('heading', { name: 'Log in' }).waitFor()
  assert.deepEqual(cspErrors, [], 'nothing on our pages was blocked by the CSP')

  // Refusal: a common password.
  await page.goto(`${base}/portal/signup`)
  await page.getByLabel('Email').fill('weak@example.com')
  await page.getByLabel('Password').fill('passwordpassword')
  await page.getByRole('button', { name: 'Create account' }).click()
  await page.getByRole('alert').filter({ hasText: 'commonly used passwords' }).waitFor()
  await accessible(page, 'signup-weak-password')

  // Refusal: enumeration. Signing up with the taken address shows what a new address shows.
  const signUp = async (email: string) => {
    const p = await (await browser.newContext()).newPage()
    await p.goto(`${base}/portal/signup`)
    await p.getByLabel('Email').fill(email)
    await p.getByLabel('Password').fill('yet another long password')
    await p.getByRole('button', { name: 'Create account' }).click()
    await p.getByRole('heading', { name: 'Check your email' }).waitFor()
    return (await p.locator('main').innerText()).replace(email, 'ADDRESS')
  }
  assert.equal(await signUp(EMAIL), await signUp('newcomer@example.com'))
  assert.match(
    (await mails(h, outbox)).find((m) => /^To: ada@example\.com$/m.test(m) && /already have an account/.test(m)) ?? '',
    /Subject/,
  )

  // Refusal: CSRF from another origin. The attacker's page posts the create-key form to the portal while the
  // victim is logged in (127.0.0.1 on another port: same site, so even the Lax cookie goes along).
  await page.goto(`${base}/portal/login`)
  await page.getByLabel('Email').fill(EMAIL)
  await page.getByLabel('Password').fill(GOOD_PASSWORD)
  await page.getByRole('button', { name: 'Log in' }).click()
  await page.getByRole('heading', { name: 'API keys' }).waitFor()
  const keysBefore = await page.getByRole('row', { name: /ci server|stolen/ }).count()
  const attacker = createServer((_request, response) => {
    response.setHeader('content-type', 'text/html')
    response.end(
      `<form method="post" action="${base}/portal/keys"><input name="_csrf" value="guess">` +
        '<input name="name" value="stolen"><input name="expires" value=""></form>' +
        '<script>document.forms[0].submit()</script>',
    )
  })
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => attacker.close(() => resolve())))
  await page.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`)
  await page.getByRole('heading', { name: 'Request refused' }).waitFor()
  await accessible(page, 'csrf-refused')
  await page.goto(`${base}/portal/keys`)
  assert.equal(await page.getByRole('row', { name: /ci server|stolen/ }).count(), keysBefore, 'no key was created')
  await page.getByRole('button', { name: 'Log out' }).click()

  // Refusal: throttling. Ten wrong passwords, then even the right one gets 429.
  await page.goto(`${base}/portal/login`)
  for (let i = 0; i < 10; i++) {
    await page.getByLabel('Email').fill(EMAIL)
    await page.getByLabel('Password').fill(`wrong password number ${i}`)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByRole('alert').filter({ hasText: 'Email or password is incorrect.' }).waitFor()
  }
  await page.getByLabel('Email').fill(EMAIL)
  await page.getByLabel('Password').fill(GOOD_PASSWORD)
  const throttled = page.waitForResponse((r) => r.url().endsWith('/portal/login') && r.request().method() === 'POST')
  await page.getByRole('button', { name: 'Log in' }).click()
  assert.equal((await throttled).status(), 429)
  await page.getByRole('heading', { name: 'Too many attempts' }).waitFor()
  await accessible(page, 'login-throttled')

  // Refusal: an expired link (the clock moves past its 24 hours).
  await signUp('slow@example.com')
  const link = await lastLink('/portal/verify')
  h.clock.advance(24 * 60 * 60 * 1000 + 1000)
  await page.goto(link)
  await page.getByRole('alert').filter({ hasText: 'This link has expired or was already used.' }).waitFor()
  await accessible(page, 'link-expired')
})
