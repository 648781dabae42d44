// The overview, the search and the audit log in a real browser (Debian chromium): reached and used with the
// keyboard alone (the Search field by its label, Enter to search, the filters, Export CSV and Next page by their
// accessible names), no serious or critical axe-core violation, and nothing wider than a 375 px phone's screen.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Page } from 'playwright-core'
import { keyEnvironment } from '../../../src/modules/accounts/api-keys.js'
import { testActor } from '../../helpers/actors.js'
import { launchChromium, screenshot, seriousViolations } from '../../helpers/browser.js'
import { setUpOperator } from '../../helpers/console.js'
import { portalHarness } from '../../helpers/portal.js'

async function noSeriousViolations(page: Page, what: string) {
  assert.deepEqual(await seriousViolations(page), [], what)
}

/** Whether the page scrolls sideways (a table too wide for the screen must scroll inside its own box). */
const overflows = (page: Page) =>
  page.evaluate<boolean>('document.documentElement.scrollWidth > document.documentElement.clientWidth')

test('the overview, search and audit pages work with the keyboard, pass axe and fit a phone', async (t) => {
  // The public URL is the listener's own origin (the browser's), as a server started with that PORT has.
  const h = await portalHarness(t, { listen: true, ownOrigin: true })
  const acme = await h.newAccount({ name: 'Acme Widgets', plan: 'pro' })
  await h.newAccount({ name: 'Acme Gadgets' })
  const key = await h.services.accounts.createApiKey({
    accountId: acme.accountId,
    environment: keyEnvironment(h.config.environment),
    name: 'CI',
    actor: testActor,
  })
  for (let i = 0; i < 3; i++)
    await fetch(`${h.baseUrl}/v1/pets`, { headers: { authorization: `Bearer ${key.key}` } }).then((r) =>
      r.arrayBuffer(),
    )
  for (let i = 0; i < 55; i++)
    await h.services.audit.record(testActor, {
      action: 'ban.lifted',
      accountId: acme.accountId,
      target: { kind: 'key', id: key.id },
    })
  const operator = await setUpOperator(h, { role: 'support' })

  const browser = await launchChromium(t)
  const page = await browser.newPage()
  await page.goto(`${h.baseUrl}/console`)
  await page.getByLabel('Email').fill(operator.email)
  await page.getByLabel('Password').fill(operator.password)
  await page.getByLabel('Code').fill(operator.codeAt(h.clock.now() + 30_000))
  await page.keyboard.press('Enter')
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
  for (const width of [1100, 375]) {
    await page.setViewportSize({ width, height: 900 })
    await page.goto(`${h.baseUrl}/console`)
    await noSeriousViolations(page, `overview at ${width}`)
    assert.equal(await overflows(page), false, `the overview fits ${width} px`)
    assert.ok(
      await page
        .getByRole('table', { name: 'The ten accounts with the most requests today' })
        .getByRole('link', { name: 'Acme Widgets' })
        .isVisible(),
    )
    await screenshot(page, `console-overview-${width}`)

    // Search with the keyboard: the field by its label, Enter to send. A whole secret opens its one account, and
    // is neither in the address bar nor on the page.
    await page.goto(`${h.baseUrl}/console/accounts`)
    await page.getByLabel('Search').focus()
    await page.keyboard.type(key.key)
    await page.keyboard.press('Enter')
    await page.waitForURL(/\?found=secret$/)
    assert.equal(page.url(), `${h.baseUrl}/console/accounts/${acme.accountId}?found=secret`)
    assert.ok(!(await page.content()).includes(key.key.slice(0, 13)))
    assert.match(await page.getByRole('status').first().innerText(), /by the whole secret of one of its keys/)
    await noSeriousViolations(page, `a search's one match at ${width}`)
    await screenshot(page, `console-search-opened-${width}`)
    // Several matches: the table, each row saying why.
    await page.goto(`${h.baseUrl}/console/accounts`)
    await page.getByLabel('Search').focus()
    await page.keyboard.type('acme')
    await page.keyboard.press('Enter')
    await page.getByRole('table').waitFor()
    assert.equal(await page.getByRole('table').locator('tbody tr').count(), 2)
    assert.match(await page.getByRole('table').innerText(), /part of the account name/)
    await noSeriousViolations(page, `search at ${width}`)
    assert.equal(await overflows(page), false, `the search fits ${width} px`)
    await screenshot(page, `console-search-${width}`)

    // The audit log: filter by action with the keyboard, then the next page and the export by their names.
    await page.goto(`${h.baseUrl}/console/audit`)
    await page.getByLabel('Action').selectOption('ban.lifted')
    await page.getByRole('button', { name: 'Filter' }).press('Enter')
    await page.waitForURL(/action=ban\.lifted/)
    assert.equal(await page.getByRole('table').locator('tbody tr').count(), 50)
    await noSeriousViolations(page, `audit at ${width}`)
    assert.equal(await overflows(page), false, `the audit log fits ${width} px`)
    await screenshot(page, `console-audit-${width}`)
    await page.getByRole('button', { name: 'Export CSV' }).waitFor()
    assert.equal(
      await page.locator('form.export input[type=hidden][name=action]').getAttribute('value'),
      'ban.lifted',
      'Export CSV carries the filter',
    )
    await page.getByRole('link', { name: 'Next page' }).press('Enter')
    await page.waitForURL(/before=/)
    assert.equal(await page.getByRole('table').locator('tbody tr').count(), 5)
  }
})
