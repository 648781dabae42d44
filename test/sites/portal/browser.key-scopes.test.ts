// Permissions in Chromium (issue 26): the Create key form's Permissions group (every box ticked), a key made with
// two boxes unticked, the "Create read-only key" button in a browser with JavaScript off, the keys table's
// Permissions column, and the Permissions page narrowing a key; nothing scrolls sideways at 375 px and axe-core
// finds no serious or critical violation. Screenshots `key-scopes-*` go to PORTAL_SCREENSHOTS when it is set.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { SCOPES } from '../../../src/modules/accounts/key-scopes.js'
import { checkBothWidths, launchChromium, signUpInBrowser, VIEWPORTS } from '../../helpers/browser.js'
import { GOOD_PASSWORD, portalHarness } from '../../helpers/portal.js'

test('permissions in Chromium: chosen by checkbox, read-only without JavaScript, shown in the table, narrowed', {
  timeout: 240_000,
}, async (t) => {
  const browser = await launchChromium(t)
  const h = await portalHarness(t, { listen: true, ownOrigin: true })
  const { outbox } = h
  const base = h.baseUrl
  const context = await browser.newContext({ viewport: VIEWPORTS[0] })
  const page = await context.newPage()
  const accountId = await signUpInBrowser(page, h, outbox, 'scopes-browser@example.com', GOOD_PASSWORD)
  const keyNamed = async (name: string) =>
    (await h.services.accounts.listApiKeys(accountId)).find((k) => k.name === name)!

  await page.goto(`${base}/portal/keys/new`)
  const group = page.getByRole('group', { name: 'Permissions' })
  for (const scope of SCOPES)
    assert.ok(await group.getByRole('checkbox', { name: scope }).isChecked(), `${scope} ticked at first`)
  await page.getByLabel('Key name').fill('shop front')
  await checkBothWidths(page, 'key-scopes-form')
  await group.getByRole('checkbox', { name: 'pets:write' }).uncheck()
  await group.getByRole('checkbox', { name: 'orders:write' }).uncheck()
  await group.getByRole('checkbox', { name: 'webhooks:read' }).uncheck()
  await group.getByRole('checkbox', { name: 'webhooks:write' }).uncheck()
  await page.getByRole('button', { name: 'Create', exact: true }).click()
  await page.waitForURL(/\/created$/)
  assert.deepEqual((await keyNamed('shop front')).scopes, ['pets:read', 'orders:read', 'messages:write'])

  // The shortcut is a plain submit button: a browser without JavaScript, on the same session, gets a read-only key.
  const noScript = await browser.newContext({ viewport: VIEWPORTS[0], javaScriptEnabled: false })
  await noScript.addCookies(await context.cookies())
  const plain = await noScript.newPage()
  await plain.goto(`${base}/portal/keys/new`)
  await plain.getByLabel('Key name').fill('dashboard')
  await plain.getByRole('button', { name: 'Create read-only key' }).click()
  await plain.waitForURL(/\/created$/)
  assert.deepEqual((await keyNamed('dashboard')).scopes, ['pets:read', 'orders:read'])
  await noScript.close()

  await page.goto(`${base}/portal/keys`)
  const row = (name: string) => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name }) })
  const scopesOf = (name: string) => row(name).locator('td[data-label="Permissions"] code').allTextContents()
  assert.deepEqual(await scopesOf('shop front'), ['pets:read', 'orders:read', 'messages:write'])
  assert.deepEqual(await scopesOf('dashboard'), ['pets:read', 'orders:read'])
  await checkBothWidths(page, 'key-scopes-table')

  await row('shop front').getByRole('link', { name: 'Narrow' }).click()
  await page.waitForURL(/\/restrict$/)
  await checkBothWidths(page, 'key-scopes-narrow')
  await page.getByRole('checkbox', { name: 'messages:write' }).uncheck()
  await page.getByRole('button', { name: 'Save permissions' }).click()
  await page.waitForURL(/\/portal\/keys$/)
  assert.deepEqual((await keyNamed('shop front')).scopes, ['pets:read', 'orders:read'])
  assert.deepEqual(await scopesOf('shop front'), ['pets:read', 'orders:read'])
})
