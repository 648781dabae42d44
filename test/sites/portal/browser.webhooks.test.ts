// Webhooks in Chromium (issue 36): add an endpoint pointed at a local receiver, see its secret once, send a test
// event, run the delivery worker, see the attempt in the log (its answer in a <details>), rotate the secret (the
// previous one's end shown), delete with the confirmation step; nothing scrolls sideways at 375 px and axe-core
// finds no serious or critical violation on the list, the endpoint's page and the secret's page at either width.
// Screenshots `portal-webhooks-*` go to PORTAL_SCREENSHOTS when it is set.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import pino from 'pino'
import { checkBothWidths, launchChromium, signUpInBrowser, VIEWPORTS } from '../../helpers/browser.js'
import { GOOD_PASSWORD, portalHarness } from '../../helpers/portal.js'
import { startReceiver } from '../../helpers/webhook-receiver.js'

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/

test('webhooks in Chromium: added, secret shown once, test event logged, rotated, deleted', {
  timeout: 240_000,
}, async (t) => {
  const browser = await launchChromium(t)
  const h = await portalHarness(t, { listen: true, ownOrigin: true })
  const receiver = await startReceiver(t, () => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: '{"received":true,"note":"thanks"}',
  }))
  const base = h.baseUrl
  const page = await (await browser.newContext({ viewport: VIEWPORTS[0] })).newPage()
  const cspErrors: string[] = []
  page.on(
    'console',
    (message) => void (/Content Security Policy/i.test(message.text()) && cspErrors.push(message.text())),
  )
  await signUpInBrowser(page, h, h.outbox, 'hooks-browser@example.com', GOOD_PASSWORD)

  // A first endpoint with two chosen types (not the receiver), then the receiver's with every event.
  await page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Webhooks' }).click()
  await page.waitForURL(/\/portal\/webhooks$/)
  await page.getByText('No endpoints yet.').waitFor()
  assert.ok(await page.getByRole('radio', { name: 'All events' }).isChecked(), 'every event by default')
  await page.getByLabel('Description (optional)').fill('orders service (staging)')
  await page.getByRole('radio', { name: 'Only the types ticked below' }).check()
  await page.getByRole('checkbox', { name: 'order.created' }).check()
  await page.getByRole('checkbox', { name: 'order.updated' }).check()
  // Refused first: the message next to the field, what was typed kept.
  await page.getByLabel('URL').fill('ftp://127.0.0.1/hooks')
  await page.getByRole('button', { name: 'Add endpoint' }).click()
  await page.getByText('The URL must start with https:// or http://.').waitFor()
  assert.equal(await page.getByLabel('URL').getAttribute('aria-invalid'), 'true')
  assert.equal(await page.getByLabel('Description (optional)').inputValue(), 'orders service (staging)')
  assert.ok(await page.getByRole('checkbox', { name: 'order.updated' }).isChecked())
  await checkBothWidths(page, 'portal-webhooks-refused')
  await page.getByLabel('URL').fill('http://127.0.0.1:9/a-rather-long-path/for-the-order-service/webhooks?tenant=42')
  await page.getByRole('button', { name: 'Add endpoint' }).click()
  await page.waitForURL(/\/portal\/webhooks\/ep_[0-9a-f]+\/secret$/)

  await page.goto(`${base}/portal/webhooks`)
  await page.getByLabel('URL').fill(receiver.url)
  await page.getByLabel('Description (optional)').fill('local receiver')
  await page.getByRole('button', { name: 'Add endpoint' }).click()
  await page.waitForURL(/\/portal\/webhooks\/ep_[0-9a-f]+\/secret$/)
  const secretAt = page.url()
  const secret = (await page.locator('#secret').textContent())!.trim()
  assert.match(secret, SECRET)
  assert.ok(await page.getByRole('button', { name: 'Copy', exact: true }).isVisible(), 'the script showed Copy')
  await checkBothWidths(page, 'portal-webhooks-secret')
  await page.reload()
  await page.getByText('This secret was shown once').waitFor()
  assert.ok(!(await page.content()).includes(secret), 'the secret is nowhere on the reloaded page')

  // The endpoint's page: a test event, sent by the worker, logged.
  await page.getByRole('link', { name: 'Go to the endpoint' }).click()
  await page.getByRole('heading', { name: 'Webhook endpoint' }).waitFor()
  await page.getByText('No deliveries yet.').waitFor()
  await page.getByRole('button', { name: 'Send test event' }).click()
  await page.getByText('A test event (webhook.test) is on its way').waitFor()
  assert.equal(await h.services.webhooks!.worker(pino({ level: 'silent' })).runOnce(), 1)
  assert.equal(receiver.received.length, 1)
  const eventId = String(receiver.received[0]!.headers['webhook-id'])
  await page.reload()
  const row = page.getByRole('row').filter({ hasText: eventId })
  assert.match((await row.locator('td[data-label="Result"]').textContent())!, /Delivered: HTTP 200/)
  await row.getByText('Response body').click()
  assert.equal((await row.locator('pre').textContent())!.trim(), '{"received":true,"note":"thanks"}')
  await checkBothWidths(page, 'portal-webhooks-endpoint')

  // Send again: the same event reaches the receiver a second time.
  await row.getByRole('button', { name: 'Send again' }).click()
  await page.getByText('The event will be sent again shortly').waitFor()
  await h.services.webhooks!.worker(pino({ level: 'silent' })).runOnce()
  assert.equal(receiver.received[1]?.headers['webhook-id'], eventId)

  // Rotate with the default grace (a day): a new secret, the previous one's end said.
  await page.getByRole('button', { name: 'Rotate secret' }).click()
  await page.getByRole('heading', { name: 'Rotate signing secret' }).waitFor()
  assert.equal(await page.getByLabel('The old secret keeps working').inputValue(), '86400')
  await page.getByRole('button', { name: 'Rotate secret' }).click()
  await page.waitForURL(secretAt)
  const rotated = (await page.locator('#secret').textContent())!.trim()
  assert.match(rotated, SECRET)
  assert.notEqual(rotated, secret)
  await page.getByText('Previous secret valid until 2027-01-02 00:00 UTC').waitFor()
  await checkBothWidths(page, 'portal-webhooks-rotated')

  await page.goto(`${base}/portal/webhooks`)
  const listed = page.getByRole('row').filter({ hasText: 'local receiver' })
  assert.match((await listed.textContent())!, /Previous secret valid until 2027-01-02 00:00 UTC/)
  await checkBothWidths(page, 'portal-webhooks-list')

  // Delete: a confirmation step, then gone.
  await listed.getByRole('link', { name: receiver.url }).click()
  await page.getByRole('button', { name: 'Delete endpoint' }).click()
  await page.getByText('This cannot be undone').waitFor()
  await checkBothWidths(page, 'portal-webhooks-delete')
  await page.getByRole('button', { name: 'Delete endpoint' }).click()
  await page.waitForURL(/\/portal\/webhooks\?done=deleted$/)
  await page.getByText('The endpoint was deleted').waitFor()
  assert.equal(await page.getByRole('row').filter({ hasText: 'local receiver' }).count(), 0)
  assert.equal(await page.getByRole('row').filter({ hasText: 'orders service (staging)' }).count(), 1)
  assert.deepEqual(cspErrors, [], 'nothing on the webhooks pages was blocked by the CSP')
})
