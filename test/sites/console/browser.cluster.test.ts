// Two instances on one PostgreSQL database (+ Redis), each remembering key look-ups for a minute: a suspension made
// in the console of the first (in Chromium, by an admin made by the CLI) is refused with 403 account_suspended by
// the second within a second, so only the change announcement (LISTEN/NOTIFY) can explain it; reactivating
// likewise lets the key through on the second within a second. Runs in the PostgreSQL + Redis pass.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { postgresOnly } from '../../helpers/backend.js'
import { launchChromium } from '../../helpers/browser.js'
import { consoleBrowserHarness, operatorInBrowser } from '../../helpers/console-browser.js'
import { errorOf } from '../../helpers/harness.js'
import { keyCachingServer, msUntilStatus, warmKeyCache } from '../../helpers/servers.js'

test('a suspension in the console of one instance is refused by a second within a second; reactivation likewise', {
  timeout: 120_000,
}, async (t) => {
  if (postgresOnly(t)) return
  const browser = await launchChromium(t)
  const first = await consoleBrowserHarness(t)
  const second = await keyCachingServer(t, first.databaseUrl)
  const { accountId, key } = await first.newAccount({ name: 'Two instances' })
  const onSecond = () => second.get(key)
  // The second instance answers the key from its cache (kept a minute) from here on.
  await warmKeyCache(second, key)

  const { page } = await operatorInBrowser(browser, first, 'admin', 'cluster-admin@ops.example')
  await page.goto(`${first.baseUrl}/console/accounts/${accountId}`)
  await page.getByRole('button', { name: 'Suspend' }).click()
  await page.getByLabel('Reason', { exact: true }).fill('Abuse reported by three customers')
  await page.getByRole('button', { name: 'Suspend' }).click()
  await page.getByRole('status').filter({ hasText: 'The account was suspended' }).waitFor()
  const suspendedAfter = await msUntilStatus(onSecond, 403, {
    check: (response) => assert.equal(errorOf(response).code, 'account_suspended'),
  })
  t.diagnostic(`the second instance refused the suspended account's key after ${suspendedAfter.toFixed(1)} ms`)
  assert.ok(suspendedAfter < 1_000, `refused after ${suspendedAfter} ms`)

  await page.getByRole('button', { name: 'Reactivate' }).click()
  await page.getByRole('button', { name: 'Reactivate' }).click()
  await page.getByRole('status').filter({ hasText: 'The account was reactivated' }).waitFor()
  const reactivatedAfter = await msUntilStatus(onSecond, 200)
  t.diagnostic(`the second instance admitted the key again after ${reactivatedAfter.toFixed(1)} ms`)
  assert.ok(reactivatedAfter < 1_000, `admitted after ${reactivatedAfter} ms`)
})
