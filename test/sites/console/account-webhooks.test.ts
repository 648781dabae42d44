// The account page's "Webhook endpoints" section and Disable (issue 36) through HTTP, on the pass's backend: the
// section shows each endpoint (its URL and description escaped, never a secret) with its health after a failed and
// then a successful attempt; an admin disables one through its confirmation step (reason `operator`, an audit entry
// with the operator, and no delivery to it afterwards); a support operator has no button and is refused; a POST
// without the CSRF token is refused; another account's endpoint is a 404; WEBHOOKS=off shows no section.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import pino from 'pino'
import { consoleHarness, signedInOperator, type ConsoleHarness } from '../../helpers/console.js'
import { bearer, type Harness } from '../../helpers/harness.js'
import { startReceiver } from '../../helpers/webhook-receiver.js'
import { addEndpoint } from '../../helpers/webhooks.js'
import { buttonsOf, entriesOf, locationOf } from './account-support.js'

const T0 = Date.parse('2027-03-01T10:00:00Z')
const env = { WEBHOOK_RETRY_SCHEDULE: '10s,1m' }
const silent = pino({ level: 'silent' })
const runWorker = (h: Harness) => h.services.webhooks!.worker(silent).runOnce()
const json = (key: string) => ({ ...bearer(key), 'content-type': 'application/json' })

/** The page's text without tags, entities undone, spaces collapsed. */
const text = (body: string) =>
  body
    .replace(/<[^>]+>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim()

/** Asserts the text has `part` (and shows the text when it has not). */
function includes(whole: string | undefined, part: string): void {
  assert.ok(whole?.includes(part), `${JSON.stringify(part)} not in ${JSON.stringify(whole)}`)
}

/** The endpoint's row of the section, as text (undefined when it is not listed). */
function rowText(body: string, endpointId: string): string | undefined {
  const row = new RegExp(`<tr><th scope="row" id="endpoint-${endpointId}" class="key-name">[\\s\\S]*?</tr>`).exec(body)
  return row ? text(row[0]) : undefined
}

const disablePath = (accountId: string, endpointId: string) =>
  `/console/accounts/${accountId}/webhooks/${endpointId}/disable`

const endpointOf = (h: Harness, accountId: string, id: string) => h.services.webhooks!.endpoints.get(accountId, id)

/** An account with two endpoints at a local receiver (`a` at /hooks, `b` at /hooks?b), both for every event. */
async function scene(t: Parameters<typeof consoleHarness>[0], options: { answer?: (n: number) => number } = {}) {
  const h = await consoleHarness(t, { now: T0, env })
  const receiver = await startReceiver(t, (_r, n) => ({ status: options.answer?.(n) ?? 204 }))
  const account = await h.newAccount()
  const a = await addEndpoint(h, account.key, receiver.url)
  const b = await addEndpoint(h, account.key, `${receiver.url}?b`)
  return { h, receiver, account, a, b }
}

/** The account's operator-made audit entries (none, when nothing was changed through the console). */
const operatorEntries = async (h: ConsoleHarness, accountId: string) =>
  (await h.services.audit.list({ accountId, limit: 50 })).filter((e) => e.actor.kind === 'operator')

test('the section: each endpoint escaped, no secret; its health after a failure, then a success', async (t) => {
  const h = await consoleHarness(t, { now: T0, env })
  const receiver = await startReceiver(t, (_r, n) => ({ status: n === 1 ? 500 : 204 }))
  const account = await h.newAccount()
  const made = await h.app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    headers: json(account.key),
    payload: { url: receiver.url, eventTypes: ['*'], description: '<script>alert(1)</script> & "orders"' },
  })
  assert.equal(made.statusCode, 201, made.body)
  const a = made.json<{ id: string; secret: string }>()
  const oddUrl = 'http://127.0.0.1:9/in?q="><script>alert(2)</script>'
  const odd = await h.app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    headers: json(account.key),
    payload: { url: oddUrl, eventTypes: ['pet.created', 'order.created'], description: '' },
  })
  assert.equal(odd.statusCode, 201, odd.body)
  const b = odd.json<{ id: string; secret: string }>()
  const admin = await signedInOperator(h, { role: 'admin' })
  const pagePath = `/console/accounts/${account.accountId}`

  // Before any attempt.
  const fresh = await admin.get(pagePath)
  assert.equal(fresh.statusCode, 200)
  assert.match(fresh.body, /<h2 id="webhooks">Webhook endpoints<\/h2>/)
  assert.equal(
    rowText(fresh.body, a.id),
    `${receiver.url} <script>alert(1)</script> & "orders" All events Enabled No attempt yet ` +
      '0 deliveries pending Last 24 h: 0 attempts, 0 failed 2027-03-01 10:00 UTC Disable',
  )
  assert.equal(
    rowText(fresh.body, b.id),
    `${oddUrl} — pet.created , order.created Enabled No attempt yet 0 deliveries pending ` +
      'Last 24 h: 0 attempts, 0 failed 2027-03-01 10:00 UTC Disable',
  )
  // Integrator input is escaped: no tag of theirs, no attribute broken out of.
  assert.ok(!fresh.body.includes('<script>'), 'no script tag')
  assert.ok(fresh.body.includes('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;orders&quot;'))
  assert.ok(fresh.body.includes('<code>http://127.0.0.1:9/in?q=&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;</code>'))
  for (const secret of [a.secret, b.secret]) assert.ok(!fresh.body.includes(secret), 'no signing secret')
  assert.ok(!fresh.body.includes('whsec_'), 'no secret of any kind')

  // A test event to `a`: its first attempt gets a 500.
  assert.equal(
    (await h.app.inject({ method: 'POST', url: `/v1/webhook-endpoints/${a.id}/test`, headers: bearer(account.key) }))
      .statusCode,
    202,
  )
  h.clock.advance(5_000)
  await runWorker(h)
  assert.equal(receiver.received.length, 1)
  const failing = await admin.get(pagePath)
  includes(
    rowText(failing.body, a.id),
    ' Enabled Last attempt 2027-03-01 10:00 UTC: failed (HTTP 500) Failing since 2027-03-01 10:00 UTC ' +
      '1 delivery pending Last 24 h: 1 attempt, 1 failed ',
  )
  assert.match(rowText(failing.body, b.id)!, / No attempt yet 0 deliveries pending Last 24 h: 0 attempts, 0 failed /)

  // Its retry, 10 seconds later, is delivered: no longer failing, nothing pending.
  h.clock.advance(60_000)
  await runWorker(h)
  assert.equal(receiver.received.length, 2)
  const healthy = await admin.get(pagePath)
  includes(
    rowText(healthy.body, a.id),
    ' Enabled Last attempt 2027-03-01 10:01 UTC: delivered (HTTP 204) 0 deliveries pending ' +
      'Last 24 h: 2 attempts, 1 failed ',
  )
  assert.doesNotMatch(rowText(healthy.body, a.id)!, /Failing since/)

  // A day after the failed attempt (and before a day after the delivered one): only the latter counts. The admin's
  // session has ended meanwhile: another admin looks.
  h.clock.advance(86_400_000 - 30_000)
  const later = await signedInOperator(h, { role: 'admin' })
  assert.match(
    rowText((await later.get(pagePath)).body, a.id)!,
    /Last attempt 2027-03-01 10:01 UTC: delivered \(HTTP 204\) 0 deliveries pending Last 24 h: 1 attempt, 0 failed/,
  )

  // Disabled by the integrator: said so, and no Disable button for it.
  const patched = await h.app.inject({
    method: 'PATCH',
    url: `/v1/webhook-endpoints/${b.id}`,
    headers: json(account.key),
    payload: { enabled: false },
  })
  assert.equal(patched.statusCode, 200, patched.body)
  const after = await later.get(pagePath)
  assert.match(rowText(after.body, b.id)!, / Disabled by the integrator No attempt yet .* UTC$/)
  assert.ok(after.body.includes(`action="${disablePath(account.accountId, a.id)}"`))
  assert.ok(!after.body.includes(`action="${disablePath(account.accountId, b.id)}"`))
  assert.deepEqual(
    buttonsOf(after.body).filter((label) => label === 'Disable'),
    ['Disable'],
  )
})

test('an admin disables an endpoint: reason operator, audited with the operator, sent nothing more', async (t) => {
  const { h, receiver, account, a, b } = await scene(t)
  const admin = await signedInOperator(h, { role: 'admin' })
  const page = await admin.get(`/console/accounts/${account.accountId}`)
  const path = disablePath(account.accountId, a.id)
  assert.ok(page.body.includes(`<form method="get" action="${path}">`), 'the button opens the confirmation step')

  const step = await admin.get(path)
  assert.equal(step.statusCode, 200, step.body)
  assert.ok(step.body.includes(`<form method="post" action="${path}"`), 'the confirmation step posts the action')
  assert.match(text(step.body), new RegExp(`URL ${receiver.url.replaceAll('.', '\\.')} .* State Enabled`))
  assert.match(text(step.body), /Disable endpoint/)
  assert.equal((await endpointOf(h, account.accountId, a.id)).enabled, true, 'the GET changes nothing')

  const location = locationOf(await admin.post(path, {}))
  assert.equal(location, `/console/accounts/${account.accountId}?done=webhook-disabled`)
  const back = await admin.get(location)
  assert.match(text(back.body), /The webhook endpoint was disabled: it is sent no more events\./)
  assert.match(rowText(back.body, a.id)!, / Disabled by an operator /)
  assert.match(rowText(back.body, b.id)!, / Enabled /)
  assert.ok(!back.body.includes(`action="${path}"`), 'no Disable button for a disabled endpoint')

  const endpoint = await endpointOf(h, account.accountId, a.id)
  assert.deepEqual([endpoint.enabled, endpoint.disabledReason], [false, 'operator'])
  assert.equal((await endpointOf(h, account.accountId, b.id)).enabled, true)
  const entries = await entriesOf(h, account.accountId, 'webhook_endpoint.disabled')
  assert.equal(entries.length, 1)
  assert.deepEqual(
    { kind: entries[0]!.actor.kind, id: entries[0]!.actor.id, email: entries[0]!.actor.email },
    { kind: 'operator', id: admin.operator.id, email: admin.operator.email },
  )
  assert.deepEqual(entries[0]!.target, { kind: 'webhook_endpoint', id: a.id })
  assert.deepEqual(entries[0]!.changes, { url: receiver.url, reason: 'operator' })

  // A new event goes to the endpoint still enabled, and to the disabled one not at all.
  const pet = await h.app.inject({
    method: 'POST',
    url: '/v1/pets',
    headers: json(account.key),
    payload: { name: 'Rex', categoryId: 1 },
  })
  assert.equal(pet.statusCode, 201, pet.body)
  await runWorker(h)
  assert.deepEqual(
    receiver.received.map((r) => r.url),
    ['/hooks?b'],
  )
  const tried = await h.handle.db.selectFrom('webhook_attempts').select('endpoint_id').execute()
  assert.deepEqual(
    tried.map((d) => d.endpoint_id),
    [b.id],
  )

  // Again: nothing changes, nothing more is recorded; the step says there is nothing to do.
  const again = locationOf(await admin.post(path, {}))
  assert.equal(again, `/console/accounts/${account.accountId}?done=webhook-unchanged`)
  assert.match(text((await admin.get(again)).body), /Nothing changed: the webhook endpoint was not enabled\./)
  assert.equal((await entriesOf(h, account.accountId, 'webhook_endpoint.disabled')).length, 1)
  const nothing = await admin.get(path)
  assert.equal(nothing.statusCode, 200)
  assert.match(text(nothing.body), /This endpoint is not enabled: there is nothing to disable\./)
  assert.ok(!nothing.body.includes('method="post" action="/console/accounts/'), 'no form')
})

test('support sees the section but no Disable button; its GET and POST are 403 and change nothing', async (t) => {
  const { h, account, a } = await scene(t)
  const support = await signedInOperator(h, { role: 'support' })
  const page = await support.get(`/console/accounts/${account.accountId}`)
  assert.equal(page.statusCode, 200)
  assert.match(rowText(page.body, a.id)!, / Enabled No attempt yet /)
  assert.ok(!page.body.includes('/webhooks/'), 'no Disable control')
  assert.ok(!buttonsOf(page.body).includes('Disable'))

  const path = disablePath(account.accountId, a.id)
  const step = await support.get(path)
  assert.equal(step.statusCode, 403)
  assert.match(step.body, /Your role \(support\) may not do this/)
  await support.get(`/console/accounts/${account.accountId}`) // its own, valid token
  assert.ok(support.csrf)
  for (const target of [path, disablePath(account.accountId, 'ep_unknown')]) {
    const response = await support.post(target, {})
    assert.equal(response.statusCode, 403, target)
    assert.match(response.body, /Your role \(support\) may not do this/)
  }
  assert.equal((await endpointOf(h, account.accountId, a.id)).enabled, true)
  assert.deepEqual(await operatorEntries(h, account.accountId), [])
})

test('a POST without the CSRF token, with a wrong one, or from elsewhere is refused; nothing changes', async (t) => {
  const { h, account, a } = await scene(t)
  const admin = await signedInOperator(h, { role: 'admin' })
  const path = disablePath(account.accountId, a.id)
  await admin.get(path)
  const good = admin.csrf
  assert.ok(good)
  const attempts = [
    admin.post(path, { _csrf: '' }),
    admin.post(path, { _csrf: `${good.slice(0, -2)}AA` }),
    admin.post(path, {}, { origin: 'https://evil.example' }),
    admin.post(path, {}, {}),
  ]
  for (const response of await Promise.all(attempts)) {
    assert.equal(response.statusCode, 403, response.body.slice(0, 200))
    assert.match(response.body, /Request refused/)
  }
  assert.equal((await endpointOf(h, account.accountId, a.id)).enabled, true)
  assert.deepEqual(await operatorEntries(h, account.accountId), [])
  // The same POST with its token works (so the refusals above were the token's and the origin's).
  assert.equal(locationOf(await admin.post(path, {})), `/console/accounts/${account.accountId}?done=webhook-disabled`)
})

test("another account's endpoint, an unknown one, an unknown account: the 404 page, and nothing changes", async (t) => {
  const { h, account, a } = await scene(t)
  const other = await h.newAccount()
  const admin = await signedInOperator(h, { role: 'admin' })
  await admin.get(`/console/accounts/${other.accountId}`)
  const cases: Array<[string, RegExp]> = [
    [disablePath(other.accountId, a.id), new RegExp(`has no webhook endpoint with the id ${a.id}`)],
    [disablePath(account.accountId, 'ep_000000000000000000000000'), /has no webhook endpoint with the id ep_0{24}/],
    [disablePath(account.accountId, '%3Cb%3Ebold'), /has no webhook endpoint with the id &lt;b&gt;bold\./],
    [disablePath('acct_missing', a.id), /No such account/],
  ]
  for (const [path, message] of cases) {
    for (const response of [await admin.get(path), await admin.post(path, {})]) {
      assert.equal(response.statusCode, 404, `${path}: ${response.body.slice(0, 300)}`)
      assert.match(response.headers['content-type'] as string, /^text\/html/)
      assert.match(response.body, message, path)
    }
  }
  assert.equal((await endpointOf(h, account.accountId, a.id)).enabled, true)
  for (const id of [account.accountId, other.accountId]) assert.deepEqual(await operatorEntries(h, id), [])
})

test('WEBHOOKS=off: no section on the account page and no Disable route', async (t) => {
  const h = await consoleHarness(t, { now: T0, env: { WEBHOOKS: 'off' } })
  assert.equal(h.services.webhooks, undefined)
  const account = await h.newAccount()
  const admin = await signedInOperator(h, { role: 'admin' })
  const page = await admin.get(`/console/accounts/${account.accountId}`)
  assert.equal(page.statusCode, 200)
  assert.match(page.body, /<h2>Keys<\/h2>/)
  assert.ok(!page.body.includes('Webhook endpoints'))
  assert.ok(!page.body.includes('id="webhooks"'))
  const path = disablePath(account.accountId, 'ep_000000000000000000000000')
  const step = await admin.get(path)
  assert.equal(step.statusCode, 404)
  assert.match(step.body, /Page not found/)

  // With webhooks on, the same account page has the section even with no endpoint.
  const on = await consoleHarness(t, { now: T0 })
  const onAccount = await on.newAccount()
  const onAdmin = await signedInOperator(on, { role: 'admin' })
  const onPage = await onAdmin.get(`/console/accounts/${onAccount.accountId}`)
  assert.match(text(onPage.body), /Webhook endpoints No webhook endpoints\./)
})
