// /console/operators in Chromium: an admin opens it from the navigation, creates an operator with the form (its
// setup link, shown once, works in another browser), changes its role and disables it through the confirmation
// page; the page, the created answer and the confirmation page without a serious axe violation.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { launchChromium } from '../../helpers/browser.js'
import { accessible, consoleBrowserHarness, operatorInBrowser, setUpInBrowser } from '../../helpers/console-browser.js'
import { OPERATOR_PASSWORD } from '../../helpers/console.js'

const NEWCOMER = 'newcomer@ops.example'

test('an admin creates, promotes and disables an operator in Chromium', { timeout: 180_000 }, async (t) => {
  const browser = await launchChromium(t)
  const h = await consoleBrowserHarness(t)
  const { page } = await operatorInBrowser(browser, h, 'admin')
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Operators' }).click()
  await page.getByRole('heading', { name: 'Operators', level: 1 }).waitFor()
  await accessible(page, 'console-operators')

  await page.getByLabel('Email', { exact: true }).fill(NEWCOMER)
  await page.getByLabel('Role', { exact: true }).selectOption('support')
  await page.getByRole('button', { name: 'Create operator' }).click()
  const link = (await page.locator('code.setup-link').textContent())!.trim()
  assert.ok(link.startsWith(`${h.baseUrl}/console/setup/`), link)
  await accessible(page, 'console-operator-created')

  const other = await (await browser.newContext()).newPage()
  await setUpInBrowser(other, h, link, OPERATOR_PASSWORD)

  const row = () => page.getByRole('row', { name: new RegExp(NEWCOMER) })
  await page.goto(`${h.baseUrl}/console/operators`)
  assert.match(await row().innerText(), /active/)
  await row()
    .getByRole('combobox', { name: `Role of ${NEWCOMER}` })
    .selectOption('admin')
  await row().getByRole('button', { name: 'Change role' }).click()
  await page.getByRole('status').filter({ hasText: 'The role was changed' }).waitFor()
  assert.match(await row().getByRole('cell').first().innerText(), /admin/)

  await row().getByRole('button', { name: 'Disable' }).click()
  await page.getByRole('heading', { name: 'Disable an operator' }).waitFor()
  await accessible(page, 'console-confirm-disable-operator')
  await page.getByRole('button', { name: 'Disable' }).click()
  await page.getByRole('status').filter({ hasText: 'The operator was disabled' }).waitFor()
  assert.match(await row().innerText(), /disabled/)
  assert.equal((await h.services.operators!.findByEmail(NEWCOMER))!.role, 'admin')
})
