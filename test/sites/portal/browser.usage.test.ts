// The usage page by outcome in Chromium, at desktop (1100 px) and phone (375 px) widths: stacked bars in four
// colours told apart by the legend, the numbers tables with the four columns, for the account and for one key;
// axe-core without a serious or critical violation, nothing scrolls sideways on a phone. Screenshots
// `usage-outcomes-*` go to PORTAL_SCREENSHOTS when it is set.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Page } from 'playwright-core'
import { keyEnvironment } from '../../../src/modules/accounts/api-keys.js'
import { refuseInserts } from '../../helpers/backend.js'
import { launchChromium, screenshot, seriousViolations, signUpInBrowser } from '../../helpers/browser.js'
import { GOOD_PASSWORD, portalHarness } from '../../helpers/portal.js'
import { testActor } from '../../helpers/actors.js'

const EMAIL = 'outcomes@example.com'
const LONG_KEY_NAME = `build-server-${'x'.repeat(87)}`
const T0 = Date.parse('2027-01-10T12:00:30Z')
const VIEWPORTS = [
  { suffix: 'desktop', width: 1100, height: 800 },
  { suffix: 'phone', width: 375, height: 800 },
] as const
/** The palette of assets.ts, as Chromium reports the bars' fill. */
const FILLS = {
  'outcome-success': 'rgb(0, 114, 178)',
  'outcome-client-error': 'rgb(213, 94, 0)',
  'outcome-refused': 'rgb(204, 121, 167)',
  'outcome-server-error': 'rgb(27, 31, 36)',
}

/** The visible rows of the chart's table (cells' text), its tables unfolded. */
async function tableRows(page: Page, chart: 'minute' | 'day'): Promise<string[][]> {
  const figure = page.locator('figure.chart').filter({ has: page.locator(`#${chart}-title`) })
  await figure.locator('summary').click()
  const rows = figure.locator('table tr')
  await rows.first().waitFor()
  return Promise.all(
    (await rows.all()).map(async (row) =>
      (await row.locator('th, td').allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim()),
    ),
  )
}

async function checkBothWidths(page: Page, name: string): Promise<void> {
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize({ width: viewport.width, height: viewport.height })
    const where = `${name} at ${viewport.width} px`
    if (viewport.suffix === 'phone') {
      const width = (await page.evaluate('document.documentElement.scrollWidth')) as number
      assert.ok(width <= viewport.width, `${where}: nothing scrolls sideways (scrollWidth ${width})`)
    }
    assert.deepEqual(await seriousViolations(page), [], `axe on ${where}`)
    await screenshot(page, `${name}-${viewport.suffix}`)
  }
}

test('the usage page shows requests by outcome in Chromium, for the account and per key, on a desktop and a phone', {
  timeout: 240_000,
}, async (t) => {
  const browser = await launchChromium(t)
  const h = await portalHarness(t, { listen: true, now: T0, ownOrigin: true })
  const { outbox } = h
  const base = h.baseUrl
  const page = await (await browser.newContext({ viewport: VIEWPORTS[0] })).newPage()

  // Sign up, open the mailed link (its path, on this listener), log in.
  const accountId = await signUpInBrowser(page, h, outbox, EMAIL, GOOD_PASSWORD)

  // Traffic of every outcome: a small plan, one key with a 100-character name doing it all, a second key once.
  await h.services.accounts.setPlan({ actor: testActor, id: accountId, plan: 'enterprise', perMinute: 5, perDay: 100 })
  const environment = keyEnvironment(h.config.environment)
  const busy = await h.services.accounts.createApiKey({ actor: testActor, accountId, environment, name: LONG_KEY_NAME })
  const quiet = await h.services.accounts.createApiKey({ actor: testActor, accountId, environment, name: 'quiet' })
  const call = async (key: string, method: 'GET' | 'POST', path: string, body?: object) => {
    const headers = { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }
    const response = await fetch(base + path, { method, headers, body: body ? JSON.stringify(body) : undefined })
    await response.arrayBuffer()
    return response.status
  }
  const statuses = [
    await call(busy.key, 'GET', '/v1/pets'),
    await call(busy.key, 'POST', '/v1/pets', { name: 'Rex', categoryId: 1 }),
  ]
  statuses.push(
    await call(busy.key, 'POST', '/v1/pets', { name: 'Rex' }),
    await call(busy.key, 'GET', '/v1/pets/987654'),
  )
  const allow = await refuseInserts(h.handle.db, 'pets')
  statuses.push(await call(busy.key, 'POST', '/v1/pets', { name: 'Rex', categoryId: 1 }))
  await allow()
  statuses.push(await call(busy.key, 'GET', '/v1/pets'), await call(busy.key, 'GET', '/v1/pets'))
  h.clock.advance(60_000)
  statuses.push(await call(quiet.key, 'GET', '/v1/pets'))
  assert.deepEqual(statuses, [200, 201, 400, 404, 500, 429, 429, 200])

  // The account.
  await page.goto(`${base}/portal/usage`)
  const legend = page.locator('#main, main').locator('.legend').first()
  assert.deepEqual(await legend.locator(':scope > span').allInnerTexts(), [
    'Success (2xx, 3xx)',
    'Client errors (4xx)',
    'Refused by limit (429)',
    'Server errors (5xx)',
  ])
  // Evaluated in the page (a string: this project's TypeScript has no DOM types).
  const fills = await page.evaluate(
    "Object.fromEntries([...document.querySelectorAll('svg rect')]" +
      ".map((rect) => [rect.getAttribute('class'), getComputedStyle(rect).fill]))",
  )
  assert.deepEqual(fills, FILLS, 'every outcome has its own colour')
  assert.deepEqual(await tableRows(page, 'minute'), [
    ['Time (UTC)', 'Success 2xx, 3xx', 'Client errors 4xx', 'Refused by limit 429', 'Server errors 5xx'],
    ['12:00', '2', '2', '2', '1'],
    ['12:01', '1', '0', '0', '0'],
    ['Total', '3', '2', '2', '1'],
  ])
  assert.deepEqual((await tableRows(page, 'day')).slice(1), [
    ['01-10', '3', '2', '2', '1'],
    ['Total', '3', '2', '2', '1'],
  ])
  await checkBothWidths(page, 'usage-outcomes')

  // One key, chosen with the picker.
  await page.setViewportSize(VIEWPORTS[0])
  await page.getByLabel('Show').selectOption(busy.id)
  await page.getByRole('button', { name: 'Show' }).click()
  await page.waitForURL(/key=key_/)
  assert.deepEqual((await tableRows(page, 'minute')).slice(1), [
    ['12:00', '2', '2', '2', '1'],
    ['Total', '2', '2', '2', '1'],
  ])
  assert.deepEqual((await tableRows(page, 'day')).slice(1), [
    ['01-10', '2', '2', '2', '1'],
    ['Total', '2', '2', '2', '1'],
  ])
  await checkBothWidths(page, 'usage-outcomes-key')
})
