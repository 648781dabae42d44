// What each role of an account's members sees and may do on the portal's pages (issue 38), on the pass's backend:
// a page shows no control its visitor's role may not use (a viewer: no Create key, Roll, Revoke, Narrow, no
// endpoint form or button, no plan request, no Delete account; a developer: the keys' and endpoints' controls, no
// plan request, no Delete account; an admin: the plan request too), and the action itself, sent anyway with the
// visitor's own CSRF token, is refused (403) and changes nothing. The frame: the Members link for a member, the
// account switcher only for a member of more than one account.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import pino from 'pino'
import { testActor } from '../../helpers/actors.js'
import type { Harness } from '../../helpers/harness.js'
import { GOOD_PASSWORD, portalHarness, signedUpUser } from '../../helpers/portal.js'
import { formFor, joined, switchTo, userOf } from '../../helpers/portal-team.js'
import { routesWith } from '../../helpers/routes.js'
import { startReceiver } from '../../helpers/webhook-receiver.js'

const silent = pino({ level: 'silent' })
const runWorker = (h: Harness) => h.services.webhooks!.worker(silent).runOnce()
const text = (body: string) =>
  body
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')

/** The owner's account with a key, an endpoint and one delivery in its log; `member` joined it with `role`. */
async function team(t: Parameters<typeof portalHarness>[0], role: 'viewer' | 'developer' | 'admin') {
  const h = await portalHarness(t)
  const receiver = await startReceiver(t)
  const owner = await signedUpUser(h, 'owner@example.com')
  const member = await signedUpUser(h, `${role}@example.com`)
  const accountId = await joined(h, 'owner@example.com', `${role}@example.com`, role)
  const key = await h.services.accounts.createApiKey({ actor: testActor, accountId, environment: 'test', name: 'ci' })
  const { endpoint } = await h.services.webhooks!.endpoints.create(
    accountId,
    { url: receiver.url, description: 'orders service', eventTypes: ['*'] },
    testActor,
  )
  await h.services.webhooks!.endpoints.sendTest(accountId, endpoint.id)
  assert.equal(await runWorker(h), 1)
  const eventId = String(receiver.received[0]!.headers['webhook-id'])
  await switchTo(h, member, accountId)
  return { h, receiver, owner, member, accountId, keyId: key.id, endpointId: endpoint.id, eventId }
}

/** What each role's controls are, found in a page's HTML. */
const controls = (keyId: string, endpointId: string) => ({
  keys: [
    'action="/portal/keys/new"',
    `action="/portal/keys/${keyId}/roll"`,
    `action="/portal/keys/${keyId}/revoke"`,
    `href="/portal/keys/${keyId}/restrict"`,
  ],
  webhooks: ['action="/portal/webhooks"', '>Add endpoint<'],
  endpoint: [
    `action="/portal/webhooks/${endpointId}"`,
    `action="/portal/webhooks/${endpointId}/test"`,
    `action="/portal/webhooks/${endpointId}/disable"`,
    `action="/portal/webhooks/${endpointId}/rotate"`,
    `action="/portal/webhooks/${endpointId}/delete"`,
    `action="/portal/webhooks/${endpointId}/recover"`,
    `/events/`,
    'Edit endpoint',
  ],
  usage: ['action="/portal/plan-requests"'],
  account: ['action="/portal/account/delete"'],
})

const has = (body: string, needles: string[], where: string) => {
  for (const needle of needles) assert.ok(body.includes(needle), `${where} has ${needle}`)
}
const hasNone = (body: string, needles: string[], where: string) => {
  for (const needle of needles) assert.ok(!body.includes(needle), `${where} has no ${needle}`)
}

test(
  'a viewer sees the keys, endpoints, deliveries, usage and account without a control of theirs; ' +
    'each action, sent anyway, is refused (403) and changes nothing',
  async (t) => {
    const { h, receiver, owner, member: viewer, accountId, keyId, endpointId, eventId } = await team(t, 'viewer')
    const c = controls(keyId, endpointId)
    const pages = {
      keys: '/portal/keys',
      webhooks: '/portal/webhooks',
      endpoint: `/portal/webhooks/${endpointId}`,
      usage: '/portal/usage',
      account: '/portal/account',
    } as const
    // The owner sees every control (so their absence below is the role's doing).
    for (const [name, path] of Object.entries(pages)) {
      const page = await owner.get(path)
      assert.equal(page.statusCode, 200, `owner ${path}`)
      has(page.body, c[name as keyof typeof pages], `the owner's ${path}`)
    }

    const keys = await viewer.get(pages.keys)
    assert.equal(keys.statusCode, 200)
    hasNone(keys.body, c.keys, "the viewer's keys page")
    assert.ok(!/<th scope="col">Actions<\/th>/.test(keys.body), 'no Actions column')
    assert.match(text(keys.body), /lets you see its keys/)
    const key = (await h.services.accounts.listApiKeys(accountId))[0]!
    assert.ok(keys.body.includes(`${key.prefix}…`), 'the key is listed')

    const webhooks = await viewer.get(pages.webhooks)
    assert.equal(webhooks.statusCode, 200)
    hasNone(webhooks.body, c.webhooks, "the viewer's webhooks page")
    assert.ok(webhooks.body.includes(receiver.url), 'the endpoint is listed')

    const endpoint = await viewer.get(pages.endpoint)
    assert.equal(endpoint.statusCode, 200)
    hasNone(endpoint.body, [...c.endpoint, 'Send again', 'Resend failed events'], "the viewer's endpoint page")
    assert.ok(endpoint.body.includes(eventId), 'the delivery log is shown')

    const usage = await viewer.get(pages.usage)
    assert.equal(usage.statusCode, 200)
    hasNone(usage.body, c.usage, "the viewer's usage page")
    assert.match(text(usage.body), /An admin or owner of the account can ask for a higher plan\./)

    const account = await viewer.get(pages.account)
    assert.equal(account.statusCode, 200)
    hasNone(account.body, c.account, "the viewer's account page")
    assert.match(text(account.body), /Only an owner can delete this account\./)

    // Every action on keys and endpoints, the plan request and the deletion, with the viewer's own token.
    const before = {
      keys: await h.services.accounts.listApiKeys(accountId),
      endpoints: await h.services.webhooks!.endpoints.list(accountId),
      attempts: await h.services.webhooks!.deliveryLog.attempts({ accountId, endpointId, limit: 50 }),
      audit: await h.services.audit.list({ accountId, limit: 500 }),
    }
    const posts = [
      ...routesWith(h.app, 'POST', '/portal/keys'),
      ...routesWith(h.app, 'POST', '/portal/webhooks'),
      '/portal/plan-requests',
      '/portal/account/delete',
    ]
    assert.ok(posts.length >= 14, posts.join(' '))
    await viewer.get(pages.keys)
    for (const route of posts) {
      const url = route.replace(':keyId', keyId).replace(':endpointId', endpointId).replace(':eventId', eventId)
      const refused = await viewer.post(url, formFor(route, GOOD_PASSWORD))
      assert.equal(refused.statusCode, 403, `POST ${url}: ${refused.body}`)
      assert.match(text(refused.body), /Not allowed.*\(Viewer\) cannot do this\. Nothing was changed/, url)
    }
    assert.deepEqual(await h.services.accounts.listApiKeys(accountId), before.keys, 'the keys as they were')
    assert.deepEqual(await h.services.webhooks!.endpoints.list(accountId), before.endpoints, 'the endpoints too')
    assert.equal(await runWorker(h), 0, 'no event was sent again, no test event')
    assert.equal(receiver.received.length, 1)
    assert.deepEqual(
      await h.services.webhooks!.deliveryLog.attempts({ accountId, endpointId, limit: 50 }),
      before.attempts,
    )
    assert.deepEqual(await h.services.portal!.planRequests.allPendingOf(accountId), [], 'no plan request')
    assert.equal((await h.services.accounts.getAccount(accountId)).deletedAt, null, 'the account is not deleted')
    assert.deepEqual(await h.services.audit.list({ accountId, limit: 500 }), before.audit, 'nothing was recorded')
    // The pages of the actions themselves are refused too.
    for (const path of ['/portal/keys/new', `/portal/keys/${keyId}/roll`, `/portal/webhooks/${endpointId}/delete`]) {
      assert.equal((await viewer.get(path)).statusCode, 403, path)
    }
  },
)

test(
  'a developer sees and uses the keys and endpoints controls, without the plan request or Delete account; ' +
    'an admin may ask for a plan',
  async (t) => {
    const { h, member: developer, accountId, keyId, endpointId } = await team(t, 'developer')
    const c = controls(keyId, endpointId)
    has((await developer.get('/portal/keys')).body, c.keys, "the developer's keys page")
    has((await developer.get('/portal/webhooks')).body, c.webhooks, "the developer's webhooks page")
    const endpoint = (await developer.get(`/portal/webhooks/${endpointId}`)).body
    has(endpoint, [...c.endpoint, 'Send again', 'Resend failed events'], "the developer's endpoint page")
    const usage = await developer.get('/portal/usage')
    hasNone(usage.body, c.usage, "the developer's usage page")
    assert.match(text(usage.body), /An admin or owner of the account can ask for a higher plan\./)
    const account = await developer.get('/portal/account')
    hasNone(account.body, c.account, "the developer's account page")
    assert.match(text(account.body), /Only an owner can delete this account\./)

    // The controls work: a key is made in the team's account.
    await developer.get('/portal/keys/new')
    const made = await developer.post('/portal/keys', { name: 'from the developer', expires: '' })
    assert.equal(made.statusCode, 303, made.body)
    assert.deepEqual((await h.services.accounts.listApiKeys(accountId)).map((k) => k.name).sort(), [
      'ci',
      'from the developer',
    ])
    for (const route of ['/portal/plan-requests', '/portal/account/delete']) {
      const refused = await developer.post(route, formFor(route, GOOD_PASSWORD))
      assert.equal(refused.statusCode, 403, route)
      assert.match(text(refused.body), /\(Developer\) cannot do this/)
    }
    assert.deepEqual(await h.services.portal!.planRequests.allPendingOf(accountId), [])
    assert.equal((await h.services.accounts.getAccount(accountId)).deletedAt, null)

    // An admin of the same account: the plan request form (and it is taken), still no Delete account.
    const admin = await signedUpUser(h, 'admin@example.com')
    await joined(h, 'owner@example.com', 'admin@example.com', 'admin')
    await switchTo(h, admin, accountId)
    has((await admin.get('/portal/usage')).body, c.usage, "the admin's usage page")
    hasNone((await admin.get('/portal/account')).body, c.account, "the admin's account page")
    const asked = await admin.post('/portal/plan-requests', formFor('/portal/plan-requests'))
    assert.equal(asked.statusCode, 303, asked.body)
    assert.deepEqual(
      (await h.services.portal!.planRequests.allPendingOf(accountId)).map((r) => r.plan),
      ['pro'],
    )
  },
)

test(
  'the frame: Members for a member; the switcher only for a member of several accounts, ' + 'naming each with the role',
  async (t) => {
    const { h, owner, member: viewer, accountId } = await team(t, 'viewer')
    const own = await userOf(h, 'viewer@example.com')
    const ownerPage = (await owner.get('/portal/keys')).body
    assert.ok(ownerPage.includes('href="/portal/members"'), 'the Members link')
    assert.ok(!ownerPage.includes('/portal/members/switch'), 'one account: no switcher')

    const page = (await viewer.get('/portal/keys')).body
    assert.ok(page.includes('href="/portal/members"'))
    const switcher = /<form method="post" action="\/portal\/members\/switch" class="switcher">(.*?)<\/form>/s.exec(page)
    assert.ok(switcher, page)
    const options = [...switcher[1]!.matchAll(/<option value="([^"]+)"( selected)?>([^<]*)<\/option>/g)].map((m) => ({
      id: m[1],
      selected: m[2] !== undefined,
      label: m[3],
    }))
    assert.deepEqual(
      options.sort((a, b) => a.label!.localeCompare(b.label!)),
      [
        { id: accountId, selected: true, label: 'owner@example.com (Viewer)' },
        { id: own.accountId, selected: false, label: 'viewer@example.com (Owner)' },
      ],
    )
    assert.match(switcher[1]!, /name="_csrf"/)
    assert.match(switcher[1]!, /<button type="submit" class="secondary small">Switch<\/button>/)
    // On a refused page and a missing one too.
    for (const path of ['/portal/keys/new', '/portal/nope']) {
      const body = (await viewer.get(path)).body
      assert.ok(body.includes('action="/portal/members/switch"'), `${path} has the switcher`)
      assert.ok(body.includes('href="/portal/members"'), `${path} has the Members link`)
    }

    // Back in their own account the viewer is its owner: every control again.
    await switchTo(h, viewer, own.accountId)
    const home = (await viewer.get('/portal/keys')).body
    assert.ok(home.includes('action="/portal/keys/new"'))
    assert.match(home, new RegExp(`<option value="${own.accountId}" selected>`))
  },
)
