// Keys in Chromium: create a key (Post/Redirect/Get), reload the page that showed the secret (no new key, the
// secret gone), roll (the new secret shown once, the old key `rolled` with the end of its grace); at 375 px the
// keys table is one card per key and nothing scrolls sideways, a 100-character name included; axe-core finds no
// serious or critical violation at either width. Screenshots `keys-*` go to PORTAL_SCREENSHOTS when it is set.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { checkBothWidths, launchChromium, signUpInBrowser, VIEWPORTS } from '../../helpers/browser.js'
import { GOOD_PASSWORD, portalHarness } from '../../helpers/portal.js'

const EMAIL = 'keys-browser@example.com'
const LONG_NAME = `deploy-${'x'.repeat(93)}`

test('keys in Chromium: created once, reloaded without a secret, rolled; cards on a phone with a 100-character name', {
  timeout: 240_000,
}, async (t) => {
  const browser = await launchChromium(t)
  const h = await portalHarness(t, { listen: true, ownOrigin: true })
  const { outbox } = h
  const base = h.baseUrl
  const api = (key: string) => fetch(`${base}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })
  const page = await (await browser.newContext({ viewport: VIEWPORTS[0] })).newPage()
  const cspErrors: string[] = []
  page.on(
    'console',
    (message) => void (/Content Security Policy/i.test(message.text()) && cspErrors.push(message.text())),
  )

  // Sign up, open the mailed link (its path, on this listener), log in.
  const accountId = await signUpInBrowser(page, h, outbox, EMAIL, GOOD_PASSWORD)
  const keyCount = async () => (await h.services.accounts.listApiKeys(accountId)).length

  // Create: the POST redirects to the key's page, which shows the secret, a curl call and the SDK.
  await page.goto(`${base}/portal/keys/new`)
  await page.getByLabel('Key name').fill(LONG_NAME)
  await page.getByRole('button', { name: 'Create', exact: true }).click()
  await page.waitForURL(/\/portal\/keys\/key_[0-9a-f]+\/created$/)
  const shownAt = page.url()
  const secret = (await page.locator('#secret').textContent())!.trim()
  assert.match(secret, /^ps_test_[\w-]{43}$/)
  assert.equal(
    (await page.locator('#curl').textContent())!.trim(),
    `curl -H "Authorization: Bearer ${secret}" ${base}/v1/pets`,
  )
  assert.match(
    (await page.locator('#sdk').textContent())!,
    new RegExp(`new Petstore\\(\\{ apiKey: '${secret}', baseUrl: '${base}/v1' \\}\\)`),
  )
  assert.ok(
    await page.getByRole('button', { name: 'Copy', exact: true }).isVisible(),
    'the script showed the Copy button of the secret',
  )
  assert.equal(
    await page.getByRole('button', { name: 'Copy snippet', exact: true }).count(),
    2,
    'and one for each snippet',
  )
  assert.equal((await api(secret)).status, 200)
  await checkBothWidths(page, 'keys-secret-shown')

  // Reload: no new key, and the secret is gone.
  await page.reload()
  await page.getByText('This secret was shown once').waitFor()
  assert.equal(await page.locator('#secret').count(), 0)
  assert.ok(!(await page.content()).includes(secret), 'the secret is nowhere on the reloaded page')
  assert.equal(page.url(), shownAt)
  assert.equal(await keyCount(), 1, 'reloading created nothing')
  await checkBothWidths(page, 'keys-shown-once')

  // A second key, so the table has several cards.
  await page.goto(`${base}/portal/keys/new`)
  await page.getByLabel('Key name').fill('ci server')
  await page.getByLabel('Expires').selectOption({ label: 'In 30 days' })
  await page.getByRole('button', { name: 'Create', exact: true }).click()
  await page.locator('#secret').waitFor()

  // Roll the long-named key: 303 to the new key's page, shown once; the old row reads `rolled` with its end.
  await page.goto(`${base}/portal/keys`)
  await page
    .getByRole('row', { name: new RegExp(LONG_NAME) })
    .getByRole('button', { name: 'Roll' })
    .click()
  await page.getByLabel('Grace period').selectOption({ label: '24 hours' })
  await page.getByRole('button', { name: 'Roll key' }).click()
  await page.waitForURL(/\/portal\/keys\/key_[0-9a-f]+\/created$/)
  const rolled = (await page.locator('#secret').textContent())!.trim()
  assert.notEqual(rolled, secret)
  await page.getByText('keeps working until 2027-01-02 00:00 UTC').waitFor()
  await page.reload()
  await page.getByText('This secret was shown once').waitFor()
  assert.equal(await keyCount(), 3)

  await page.goto(`${base}/portal/keys`)
  const oldRow = page.getByRole('row').filter({ hasText: secret.slice(0, 12) })
  assert.equal((await oldRow.locator('.state-rolled').textContent())!.trim(), 'rolled')
  assert.equal((await oldRow.locator('td[data-label="Expires"]').textContent())!.trim(), '2027-01-02 00:00 UTC')
  const newRow = page.getByRole('row').filter({ hasText: rolled.slice(0, 12) })
  assert.match((await newRow.textContent())!, new RegExp(LONG_NAME), 'the new key keeps the name')
  await checkBothWidths(page, 'keys-table')

  // On the phone the table is one card per key: rows stacked, each cell labelled, the column headers out of sight.
  await page.setViewportSize(VIEWPORTS[1])
  const rows = page.locator('table.keys tbody tr')
  assert.equal(await rows.count(), 3)
  const boxes = await Promise.all((await rows.all()).map((row) => row.boundingBox()))
  for (const box of boxes)
    assert.ok(box && box.x >= 0 && box.x + box.width <= 375, `card inside the screen: ${JSON.stringify(box)}`)
  assert.ok(boxes[1]!.y >= boxes[0]!.y + boxes[0]!.height, 'cards stack')
  assert.equal(await page.locator('table.keys thead').evaluate((e) => e.getBoundingClientRect().height <= 1), true)
  assert.equal(
    await oldRow
      .locator('td[data-label="Expires"]')
      .evaluate(
        (e) =>
          (
            globalThis as unknown as { getComputedStyle: (el: typeof e, pseudo: string) => { content: string } }
          ).getComputedStyle(e, '::before').content,
      ),
    '"Expires: "',
  )
  assert.deepEqual(cspErrors, [], 'nothing on the keys pages was blocked by the CSP')
})
