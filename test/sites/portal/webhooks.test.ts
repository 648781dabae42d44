// /portal/webhooks through HTTP, on the pass's backend (issue 36): adding an endpoint answers 303 to a page that
// shows its signing secret once (the secret signs what the receiver gets); a refused form keeps what was typed,
// the service's words next to the field; every form needs its CSRF token; another account's endpoint is a 404 on
// every route; disable and enable; rotate (a new secret, the old one still signing until the grace ends); a test
// event reaches a local receiver and its attempt is in the log (status, answer); "Send again" sends the same event;
// "Resend failed events" counts what it sends; the log pages; the cap on endpoints; delete with its confirmation;
// WEBHOOKS=off.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import pino from 'pino'
import { Webhook } from 'standardwebhooks'
import type { Harness } from '../../helpers/harness.js'
import { testActor } from '../../helpers/actors.js'
import { ORIGIN, portalHarness, signedUpUser, type Client } from '../../helpers/portal.js'
import { routesWith } from '../../helpers/routes.js'
import { startReceiver } from '../../helpers/webhook-receiver.js'

const SECRET = /whsec_[A-Za-z0-9+/]{43}=/
const secretOf = (body: string) => SECRET.exec(body)?.[0]
const silent = pino({ level: 'silent' })
const runWorker = (h: Harness) => h.services.webhooks!.worker(silent).runOnce()
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

/** A form post whose fields may repeat (several event types), with the client's cookies and token. */
function postPairs(h: Harness, c: Client, url: string, pairs: [string, string][]) {
  return h.app.inject({
    method: 'POST',
    url,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: ORIGIN,
      cookie: [...c.jar].map(([k, v]) => `${k}=${v}`).join('; '),
    },
    payload: new URLSearchParams([['_csrf', c.csrf], ...pairs]).toString(),
  })
}

/** Adds an endpoint through the form: 303 to its secret page; returns the id, the page's path and the secret. */
async function added(c: Client, url: string, fields: Record<string, string> = {}) {
  await c.get('/portal/webhooks')
  const response = await c.post('/portal/webhooks', { url, description: 'orders service', events: 'all', ...fields })
  assert.equal(response.statusCode, 303, response.body)
  assert.equal(response.body, '', 'the POST answer carries no secret')
  const location = response.headers.location as string
  const id = /^\/portal\/webhooks\/(ep_[0-9a-f]+)\/secret$/.exec(location)?.[1]
  assert.ok(id, `redirected to ${location}`)
  const page = await c.get(location)
  assert.equal(page.statusCode, 200)
  const secret = secretOf(page.body)
  assert.ok(secret, page.body)
  return { id, location, secret, page, response }
}

/** The signatures of a delivery the receiver got, checked against each secret: which of them signed it. */
function signedWith(delivery: { headers: Record<string, unknown>; body: string }, secrets: string[]): boolean[] {
  const id = String(delivery.headers['webhook-id'])
  const at = new Date(Number(delivery.headers['webhook-timestamp']) * 1000)
  const signatures = String(delivery.headers['webhook-signature']).split(' ')
  return secrets.map((s) => signatures.includes(new Webhook(s).sign(id, at, delivery.body)))
}

test('add: 303 to the secret, shown once and signing the deliveries; the list shows the endpoint', async (t) => {
  const lines: string[] = []
  const h = await portalHarness(t, { logger: { level: 'trace', stream: { write: (l: string) => lines.push(l) } } })
  const receiver = await startReceiver(t)
  const c = await signedUpUser(h, 'hooks@example.com')
  const list = await c.get('/portal/webhooks')
  assert.equal(list.statusCode, 200)
  assert.match(list.body, /<a href="\/portal\/webhooks" aria-current="page">Webhooks<\/a>/, 'in the navigation')
  assert.match(text(list.body), /No endpoints yet/)

  const made = await added(c, receiver.url)
  const flash = (
    made.response.cookies as { name: string; value: string; path?: string; httpOnly?: boolean; sameSite?: string }[]
  ).find((k) => k.name === 'portal_new_key')!
  assert.deepEqual([flash.path, flash.httpOnly, flash.sameSite], [made.location, true, 'Strict'])
  assert.ok(!flash.value.includes('whsec_'), 'the cookie is sealed')
  assert.ok(!c.jar.has('portal_new_key'), 'the page cleared the cookie')
  assert.match(text(made.page.body), /shown only once/)
  assert.match(made.page.body, /<code id="secret" class="secret">whsec_/)
  assert.match(text(made.page.body), /webhook-signature .*Standard Webhooks.*docs\/integrators\/webhooks\.md/)

  const reload = await c.get(made.location)
  assert.equal(reload.statusCode, 200)
  assert.equal(secretOf(reload.body), undefined, 'a reload shows no secret')
  assert.match(text(reload.body), /This secret was shown once/)

  const after = text((await c.get('/portal/webhooks')).body)
  assert.ok(after.includes(receiver.url), after)
  assert.match(after, /orders service All events Enabled/)
  const endpointPage = await c.get(`/portal/webhooks/${made.id}`)
  assert.equal(endpointPage.statusCode, 200)
  for (const body of [after, endpointPage.body]) assert.ok(!body.includes('whsec_'), 'no secret on other pages')

  // The secret shown is the one deliveries are signed with.
  await c.post(`/portal/webhooks/${made.id}/test`, {})
  await runWorker(h)
  assert.equal(receiver.received.length, 1)
  assert.deepEqual(signedWith(receiver.received[0]!, [made.secret]), [true])
  assert.ok(!lines.some((l) => l.includes('whsec_') || l.includes(made.secret)), 'no secret in a log line')
  assert.ok(
    lines.some((l) => l.includes(`/portal/webhooks/${made.id}/secret`)),
    'the log was captured',
  )
})

test('a refused form keeps what was typed and says why next to the field; nothing is saved', async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, 'refused@example.com')
  await c.get('/portal/webhooks')
  const cases = [
    { url: 'ftp://x', field: 'url', message: 'The URL must start with https:// or http://.' },
    {
      url: 'http://user:pw@127.0.0.1/',
      field: 'url',
      message: 'The URL must not contain a user name or password.',
    },
  ]
  for (const { url, field, message } of cases) {
    const refused = await postPairs(h, c, '/portal/webhooks', [
      ['url', url],
      ['description', 'kept "as typed"'],
      ['events', 'chosen'],
      ['eventTypes', 'order.created'],
      ['eventTypes', 'message.failed'],
    ])
    assert.equal(refused.statusCode, 400, refused.body)
    assert.ok(
      refused.body.includes(`<div class="notice notice-error" role="alert" id="${field}-error">${message}</div>`),
      refused.body,
    )
    assert.match(refused.body, new RegExp(`id="url"[^>]*value="${url.replace(/[/.:]/g, '\\$&')}"[^>]*aria-invalid`))
    assert.match(refused.body, /aria-describedby="url-hint url-error"/)
    assert.match(refused.body, /id="description"[^>]*value="kept &quot;as typed&quot;"/)
    assert.match(refused.body, /name="events" value="chosen" checked/)
    assert.match(refused.body, /value="order\.created" checked/)
    assert.match(refused.body, /value="message\.failed" checked/)
    assert.doesNotMatch(refused.body, /value="pet\.created" checked/)
  }
  const none = await c.post('/portal/webhooks', { url: 'http://127.0.0.1:9/x', description: '', events: 'chosen' })
  assert.equal(none.statusCode, 400)
  assert.match(text(none.body), /Choose at least one event type, or "All events"\./)
  const long = await c.post('/portal/webhooks', {
    url: 'http://127.0.0.1:9/x',
    description: 'd'.repeat(201),
    events: 'all',
  })
  assert.equal(long.statusCode, 400)
  assert.match(long.body, /id="description-error">The description may be up to 200 characters\./)
  assert.match(text((await c.get('/portal/webhooks')).body), /No endpoints yet/, 'nothing was added')

  // Editing is held to the same rules, on the endpoint's page.
  const { id } = await added(c, 'http://127.0.0.1:9/first')
  const edit = await c.post(`/portal/webhooks/${id}`, { url: 'ftp://x', description: 'changed', events: 'all' })
  assert.equal(edit.statusCode, 400)
  assert.match(edit.body, /id="url-error">The URL must start with https:\/\/ or http:\/\/\./)
  assert.match(edit.body, /id="url"[^>]*value="ftp:\/\/x"/)
  const endpoint = await h.services.webhooks!.endpoints.get(
    (await h.services.portal!.repo.findUserByEmail('refused@example.com'))!.account_id,
    id,
  )
  assert.deepEqual([endpoint.url, endpoint.description], ['http://127.0.0.1:9/first', 'orders service'])
})

test('at ten endpoints the list says how to make room, not the form; a form sent anyway is refused', async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, 'full@example.com')
  const accountId = (await h.services.portal!.repo.findUserByEmail('full@example.com'))!.account_id
  await c.get('/portal/webhooks')
  for (let i = 0; i < 10; i++)
    await h.services.webhooks!.endpoints.create(
      accountId,
      { url: `http://127.0.0.1:9/${i}`, eventTypes: ['*'] },
      testActor,
    )
  const list = await c.get('/portal/webhooks')
  assert.match(text(list.body), /You have 10 endpoints, as many as an account may have\. To add another, delete one/)
  assert.doesNotMatch(list.body, /Add endpoint<\/button>/)
  const refused = await c.post('/portal/webhooks', { url: 'http://127.0.0.1:9/x', description: '', events: 'all' })
  assert.equal(refused.statusCode, 400)
  assert.match(text(refused.body), /You have 10 endpoints/)
  assert.equal((await h.services.webhooks!.endpoints.list(accountId)).length, 10)
})

test('an edit saves the URL, description and types; the page says so', async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, 'edit@example.com')
  const { id } = await added(c, 'http://127.0.0.1:9/old')
  await c.get(`/portal/webhooks/${id}`)
  const saved = await postPairs(h, c, `/portal/webhooks/${id}`, [
    ['url', ' http://127.0.0.1:9/new '],
    ['description', 'billing'],
    ['events', 'chosen'],
    ['eventTypes', 'pet.created'],
    ['eventTypes', 'order.updated'],
  ])
  assert.equal(saved.statusCode, 303)
  assert.equal(saved.headers.location, `/portal/webhooks/${id}?done=saved`)
  const page = await c.get(saved.headers.location as string)
  assert.match(text(page.body), /Your changes were saved\./)
  assert.match(
    text(page.body),
    /URL http:\/\/127\.0\.0\.1:9\/new Description billing Events pet\.created , order\.updated/,
  )
  assert.match(page.body, /name="events" value="chosen" checked/)
  const list = text((await c.get('/portal/webhooks')).body)
  assert.match(list, /http:\/\/127\.0\.0\.1:9\/new billing pet\.created , order\.updated Enabled/)
})

test('every form needs its CSRF token', async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, 'csrf-hooks@example.com')
  const accountId = (await h.services.portal!.repo.findUserByEmail('csrf-hooks@example.com'))!.account_id
  await c.get('/portal/webhooks')
  const form = { url: 'http://127.0.0.1:9/x', description: '', events: 'all' }
  assert.equal((await c.post('/portal/webhooks', { ...form, _csrf: '' })).statusCode, 403)
  assert.equal((await c.post('/portal/webhooks', form, {})).statusCode, 403, 'no Origin header')
  assert.deepEqual(await h.services.webhooks!.endpoints.list(accountId), [], 'nothing was added')
  const { id } = await added(c, form.url)
  for (const path of ['', '/disable', '/rotate', '/delete', '/test', '/recover']) {
    const refused = await c.post(`/portal/webhooks/${id}${path}`, { ...form, grace: '0', since: '3600', _csrf: '' })
    assert.equal(refused.statusCode, 403, `${path}: ${refused.body}`)
    assert.match(text(refused.body), /Request refused/)
  }
  const endpoint = await h.services.webhooks!.endpoints.get(accountId, id)
  assert.equal(endpoint.enabled, true)
  assert.equal(endpoint.previousSecretExpiresAt, undefined)
  assert.equal(
    (await h.services.webhooks!.deliveryLog.attempts({ accountId, endpointId: id, limit: 5 })).hasMore,
    false,
  )
})

test("another account's endpoint is a 404 on every route, and nothing of it changes", async (t) => {
  const h = await portalHarness(t)
  const receiver = await startReceiver(t)
  const owner = await signedUpUser(h, 'owner-hooks@example.com')
  const ownerAccount = (await h.services.portal!.repo.findUserByEmail('owner-hooks@example.com'))!.account_id
  const { id, location } = await added(owner, receiver.url)
  await owner.post(`/portal/webhooks/${id}/test`, {})
  await runWorker(h)
  const eventId = String(receiver.received[0]!.headers['webhook-id'])
  const before = await h.services.webhooks!.endpoints.get(ownerAccount, id)

  const other = await signedUpUser(h, 'other-hooks@example.com')
  await other.get('/portal/webhooks')
  const fill = (route: string) => route.replace(':endpointId', id).replace(':eventId', eventId)
  const gets = routesWith(h.app, 'GET', '/portal/webhooks/')
  const posts = routesWith(h.app, 'POST', '/portal/webhooks/')
  assert.ok(gets.length >= 4 && posts.length >= 8, `${gets.join(', ')} / ${posts.join(', ')}`)
  for (const route of gets) {
    const response = await other.get(fill(route))
    assert.equal(response.statusCode, 404, `GET ${route}`)
    assert.match(text(response.body), /No such endpoint/)
  }
  // Each with a form its route takes, so that only the id can be wrong.
  const formOf = (route: string): Record<string, string> =>
    route.endsWith('/rotate')
      ? { grace: '0' }
      : route.endsWith('/recover')
        ? { since: '604800' }
        : route === '/portal/webhooks/:endpointId'
          ? { url: 'http://127.0.0.1:9/taken', description: 'x', events: 'all' }
          : {}
  for (const route of posts) {
    const response = await other.post(fill(route), formOf(route))
    assert.equal(response.statusCode, 404, `POST ${route}: ${response.body}`)
  }
  // The owner's endpoint as it was: same URL, enabled, never rotated, and the event not sent again.
  assert.deepEqual(await h.services.webhooks!.endpoints.get(ownerAccount, id), before)
  assert.equal(await runWorker(h), 0)
  assert.equal(receiver.received.length, 1)
  assert.equal((await owner.get(location)).statusCode, 200)
  // A malformed id never reaches the service.
  assert.equal((await other.get('/portal/webhooks/ep_NOT-HEX')).statusCode, 400)
  assert.equal((await other.get(`/portal/webhooks/ep_${'0'.repeat(24)}`)).statusCode, 404)
})

test('disable and enable; a disabled endpoint is sent no test event; the reason is said in words', async (t) => {
  const h = await portalHarness(t)
  let status = 204
  const receiver = await startReceiver(t, () => ({ status }))
  const c = await signedUpUser(h, 'toggle@example.com')
  const { id } = await added(c, receiver.url)
  await c.get(`/portal/webhooks/${id}`)
  const off = await c.post(`/portal/webhooks/${id}/disable`, {})
  assert.equal(off.headers.location, `/portal/webhooks/${id}?done=disabled`)
  const page = await c.get(off.headers.location as string)
  assert.match(text(page.body), /The endpoint is disabled: nothing is sent to it/)
  assert.match(text(page.body), /State Disabled by you/)
  assert.doesNotMatch(page.body, /Send test event/)
  assert.match(page.body, /action="\/portal\/webhooks\/ep_[0-9a-f]+\/enable"/)
  assert.match(text((await c.get('/portal/webhooks')).body), /All events Disabled by you/)
  const test409 = await c.post(`/portal/webhooks/${id}/test`, {})
  assert.equal(test409.statusCode, 409)
  assert.match(text(test409.body), /A disabled endpoint is sent nothing/)

  const on = await c.post(`/portal/webhooks/${id}/enable`, {})
  assert.equal(on.headers.location, `/portal/webhooks/${id}?done=enabled`)
  assert.match(text((await c.get(`/portal/webhooks/${id}`)).body), /State Enabled/)

  // A 410 from the receiver disables it: the page says why.
  status = 410
  await c.post(`/portal/webhooks/${id}/test`, {})
  await runWorker(h)
  const gone = text((await c.get(`/portal/webhooks/${id}`)).body)
  assert.match(gone, /State Disabled: the endpoint answered 410 Gone/)
  assert.match(gone, /Failed: HTTP 410/)
})

test('rotate: a new secret shown once; the old one signs too until the grace ends', async (t) => {
  const h = await portalHarness(t)
  const receiver = await startReceiver(t)
  const c = await signedUpUser(h, 'rotate@example.com')
  const first = await added(c, receiver.url)
  const confirm = await c.get(`/portal/webhooks/${first.id}/rotate`)
  assert.equal(confirm.statusCode, 200)
  assert.match(confirm.body, /<option value="86400" selected>1 day<\/option>/, 'a day by default')
  for (const choice of ['None: the old secret stops now', '1 hour', '7 days']) assert.ok(confirm.body.includes(choice))
  assert.equal((await c.post(`/portal/webhooks/${first.id}/rotate`, { grace: '5' })).statusCode, 400)

  const rotated = await c.post(`/portal/webhooks/${first.id}/rotate`, { grace: '3600' })
  assert.equal(rotated.statusCode, 303)
  assert.equal(rotated.headers.location, first.location)
  const page = await c.get(first.location)
  const secret = secretOf(page.body)!
  assert.ok(secret && secret !== first.secret, 'a new secret')
  assert.match(text(page.body), /Previous secret valid until 2027-01-01 01:00 UTC/)
  assert.equal(secretOf((await c.get(first.location)).body), undefined, 'shown once')
  assert.match(text((await c.get('/portal/webhooks')).body), /Enabled Previous secret valid until 2027-01-01 01:00 UTC/)
  assert.match(text((await c.get(`/portal/webhooks/${first.id}`)).body), /Signing secret Previous secret valid until/)

  await c.post(`/portal/webhooks/${first.id}/test`, {})
  await runWorker(h)
  assert.deepEqual(signedWith(receiver.received.at(-1)!, [secret, first.secret]), [true, true])

  // No grace: only the new secret signs.
  await c.post(`/portal/webhooks/${first.id}/rotate`, { grace: '0' })
  const third = secretOf((await c.get(first.location)).body)!
  await c.post(`/portal/webhooks/${first.id}/test`, {})
  await runWorker(h)
  assert.deepEqual(signedWith(receiver.received.at(-1)!, [third, secret]), [true, false])
  assert.match(text((await c.get(`/portal/webhooks/${first.id}`)).body), /Signing secret One secret/)
})

test('a test event reaches the receiver; its attempt is in the log; "Send again" sends the same event', async (t) => {
  const h = await portalHarness(t)
  const receiver = await startReceiver(t, (_r, n) =>
    n === 1 ? { status: 204 } : { status: 500, body: `<b>broken</b> ${'x'.repeat(2000)}` },
  )
  const c = await signedUpUser(h, 'test-event@example.com')
  const { id } = await added(c, receiver.url)
  const empty = text((await c.get(`/portal/webhooks/${id}`)).body)
  assert.match(empty, /No deliveries yet/)
  const sent = await c.post(`/portal/webhooks/${id}/test`, {})
  assert.equal(sent.headers.location, `/portal/webhooks/${id}?done=test#deliveries`)
  assert.match(
    text((await c.get(`/portal/webhooks/${id}?done=test`)).body),
    /A test event \(webhook\.test\) is on its way/,
  )
  assert.equal(receiver.received.length, 0, 'the worker sends it')
  await runWorker(h)
  assert.equal(receiver.received.length, 1)
  const eventId = String(receiver.received[0]!.headers['webhook-id'])
  assert.match(eventId, /^evt_[0-9a-f]+$/)
  assert.equal(JSON.parse(receiver.received[0]!.body).type, 'webhook.test')

  const log = (await c.get(`/portal/webhooks/${id}`)).body
  const row = log.split('<tr>').find((r) => r.includes(eventId))!
  assert.ok(row, log)
  assert.match(text(row), /2027-01-01 00:00 UTC webhook\.test evt_[0-9a-f]+ Delivered: HTTP 204 \d+ ms/)
  assert.ok(row.includes(`action="/portal/webhooks/${id}/events/${eventId}/resend"`))

  const again = await c.post(`/portal/webhooks/${id}/events/${eventId}/resend`, {})
  assert.equal(again.headers.location, `/portal/webhooks/${id}?done=resent#deliveries`)
  await runWorker(h)
  assert.equal(receiver.received.length, 2)
  assert.equal(receiver.received[1]!.headers['webhook-id'], eventId, 'the same event')
  const after = (await c.get(`/portal/webhooks/${id}`)).body
  const rows = after.split('<tr>').filter((r) => r.includes(eventId))
  assert.equal(rows.length, 2, 'both attempts')
  assert.match(text(rows[0]!), /Failed: HTTP 500/, 'newest first')
  assert.match(rows[0]!, /<details><summary>Response body<\/summary><pre>&lt;b&gt;broken&lt;\/b&gt; x+<\/pre>/)
  assert.equal(/<pre>([^<]*)<\/pre>/.exec(rows[0]!)![1]!.replace(/&lt;|&gt;/g, '<').length, 1024, 'the first 1 KiB')
  assert.equal(rows.filter((r) => r.includes('/resend"')).length, 1, 'one Send again per event')
  const unknown = await c.post(`/portal/webhooks/${id}/events/evt_${'0'.repeat(32)}/resend`, {})
  assert.equal(unknown.statusCode, 404)
  assert.match(text(unknown.body), /No such event/)
})

test('"Resend failed events" sends again the failed ones since the time chosen and says how many', async (t) => {
  const h = await portalHarness(t, { env: { WEBHOOK_RETRY_SCHEDULE: '10s' } })
  let status = 500
  const receiver = await startReceiver(t, () => ({ status }))
  const c = await signedUpUser(h, 'recover@example.com')
  const { id } = await added(c, receiver.url)
  for (let i = 0; i < 2; i++) await c.post(`/portal/webhooks/${id}/test`, {})
  await runWorker(h)
  h.clock.advance(10_000)
  await runWorker(h)
  assert.equal(receiver.received.length, 4, 'each tried twice, then failed')
  const page = await c.get(`/portal/webhooks/${id}`)
  assert.match(page.body, /<option value="86400" selected>the last 24 hours<\/option>/)
  assert.match(text(page.body), /Failed: HTTP 500/)
  assert.equal((await c.post(`/portal/webhooks/${id}/recover`, { since: '42' })).statusCode, 400)

  status = 204
  const recovered = await c.post(`/portal/webhooks/${id}/recover`, { since: '3600' })
  assert.equal(recovered.headers.location, `/portal/webhooks/${id}?done=recovered&count=2#deliveries`)
  assert.match(text((await c.get(recovered.headers.location as string)).body), /2 failed events will be sent again/)
  await runWorker(h)
  assert.equal(receiver.received.length, 6)
  assert.deepEqual(
    new Set(receiver.received.slice(4).map((r) => r.headers['webhook-id'])),
    new Set(receiver.received.slice(0, 2).map((r) => r.headers['webhook-id'])),
    'the same two events',
  )
  const none = await c.post(`/portal/webhooks/${id}/recover`, { since: '604800' })
  assert.equal(none.headers.location, `/portal/webhooks/${id}?done=recovered&count=0#deliveries`)
  assert.match(text((await c.get(none.headers.location as string)).body), /No delivery failed in that time/)
})

test('the log pages back 20 attempts at a time', async (t) => {
  const h = await portalHarness(t)
  const receiver = await startReceiver(t)
  const c = await signedUpUser(h, 'paging@example.com')
  const { id } = await added(c, receiver.url)
  // One at a time, so that the receiver hears them in the order they are logged.
  for (let i = 0; i < 23; i++) {
    await c.post(`/portal/webhooks/${id}/test`, {})
    assert.equal(await runWorker(h), 1)
  }
  assert.equal(receiver.received.length, 23)
  const first = (await c.get(`/portal/webhooks/${id}`)).body
  const ids = (body: string) => [...body.matchAll(/<code class="key-name">(evt_[0-9a-f]+)<\/code>/g)].map((m) => m[1]!)
  assert.equal(ids(first).length, 20)
  assert.equal(ids(first)[0], receiver.received[22]!.headers['webhook-id'], 'newest first')
  const older = /href="(\/portal\/webhooks\/ep_[0-9a-f]+\?before=\d+)#deliveries">Older attempts/.exec(first)![1]!
  const second = (await c.get(older)).body
  assert.deepEqual(
    ids(second),
    receiver.received
      .slice(0, 3)
      .reverse()
      .map((r) => r.headers['webhook-id']),
  )
  assert.doesNotMatch(second, /Older attempts/)
  assert.match(second, /Newest attempts/)
})

test('delete asks first, then the endpoint is gone', async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, 'delete-hooks@example.com')
  const { id } = await added(c, 'http://127.0.0.1:9/bye')
  const confirm = await c.get(`/portal/webhooks/${id}/delete`)
  assert.equal(confirm.statusCode, 200)
  assert.match(text(confirm.body), /Delete the endpoint http:\/\/127\.0\.0\.1:9\/bye \? .*cannot be undone/)
  assert.match(confirm.body, /<form method="post" action="\/portal\/webhooks\/ep_[0-9a-f]+\/delete"/)
  assert.ok(
    text((await c.get('/portal/webhooks')).body).includes('http://127.0.0.1:9/bye'),
    'opening it deletes nothing',
  )
  const deleted = await c.post(`/portal/webhooks/${id}/delete`, {})
  assert.equal(deleted.headers.location, '/portal/webhooks?done=deleted')
  const list = text((await c.get('/portal/webhooks?done=deleted')).body)
  assert.match(list, /The endpoint was deleted/)
  assert.match(list, /No endpoints yet/)
  assert.equal((await c.get(`/portal/webhooks/${id}`)).statusCode, 404)
  assert.equal((await c.post(`/portal/webhooks/${id}/delete`, {})).statusCode, 404)
})

test('WEBHOOKS=off: no webhooks page and no link to it', async (t) => {
  const h = await portalHarness(t, { env: { WEBHOOKS: 'off' } })
  const c = await signedUpUser(h, 'no-hooks@example.com')
  const keys = await c.get('/portal/keys')
  assert.doesNotMatch(keys.body, /\/portal\/webhooks/)
  assert.match(keys.body, /href="\/portal\/activity"/)
  assert.equal((await c.get('/portal/webhooks')).statusCode, 404)
})
