// Insecure direct object references, swept over the whole portal (issue 38), on the pass's backend: every portal
// route that names an item by its id (a key, an endpoint, an event, a passkey, a member, an invitation), asked for
// with GET and POST by the owner of ANOTHER account with their own valid CSRF token, answers 404 and changes
// nothing. The routes are read from the app's route table, so a route added later with an id is swept too, and one
// whose id the sweep cannot fill fails here until it is given one.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import pino from 'pino'
import { testActor } from '../../helpers/actors.js'
import type { Harness } from '../../helpers/harness.js'
import { mails, ORIGIN, portalHarness, signedUpUser, type Client } from '../../helpers/portal.js'
import { formFor, invited, joined, userOf } from '../../helpers/portal-team.js'
import { routesWith } from '../../helpers/routes.js'
import { softAuthenticator } from '../../helpers/soft-authenticator.js'
import { startReceiver } from '../../helpers/webhook-receiver.js'

const silent = pino({ level: 'silent' })
const runWorker = (h: Harness) => h.services.webhooks!.worker(silent).runOnce()
const device = softAuthenticator(new URL(ORIGIN).hostname, ORIGIN)

/**
 * Parameters that are not ids: the secret of a mailed link (verify, reset, change of address, invitation), which
 * its own tests hold to "a wrong or used one shows the expired-link page".
 */
const NOT_IDS = new Set(['token'])

/** The routes with an id the sweep must find (the rest of the table's are swept as well). */
const EXPECTED = [
  'GET /portal/keys/:keyId/created',
  'GET /portal/keys/:keyId/roll',
  'GET /portal/keys/:keyId/revoke',
  'GET /portal/keys/:keyId/restrict',
  'POST /portal/keys/:keyId/roll',
  'POST /portal/keys/:keyId/revoke',
  'POST /portal/keys/:keyId/restrict',
  'GET /portal/webhooks/:endpointId',
  'GET /portal/webhooks/:endpointId/rotate',
  'GET /portal/webhooks/:endpointId/delete',
  'GET /portal/webhooks/:endpointId/secret',
  'POST /portal/webhooks/:endpointId',
  'POST /portal/webhooks/:endpointId/enable',
  'POST /portal/webhooks/:endpointId/disable',
  'POST /portal/webhooks/:endpointId/rotate',
  'POST /portal/webhooks/:endpointId/delete',
  'POST /portal/webhooks/:endpointId/test',
  'POST /portal/webhooks/:endpointId/recover',
  'POST /portal/webhooks/:endpointId/events/:eventId/resend',
  'POST /portal/account/passkeys/:passkeyId/remove',
]

async function addPasskey(c: Client): Promise<void> {
  await c.get('/portal/account')
  const options = await c.post('/portal/account/passkeys/options', { purpose: 'register' })
  assert.equal(options.statusCode, 200, options.body)
  const { response } = device.register(JSON.parse(options.body) as { challenge: string; user: { id: string } })
  const added = await c.post('/portal/account/passkeys', { name: 'Laptop', response: JSON.stringify(response) })
  assert.ok(added.statusCode < 400, added.body)
}

test("every portal route with an id, asked by another account's owner (GET and POST, own CSRF token), is a 404 " +
  'and changes nothing', { timeout: 120_000 }, async (t) => {
  const h = await portalHarness(t)
  const receiver = await startReceiver(t)
  // Ada's account: a key, an endpoint with a delivery, her passkey, a member, an open invitation.
  const ada = await signedUpUser(h, 'ada@example.com')
  const { id: adaId, accountId } = await userOf(h, 'ada@example.com')
  const key = await h.services.accounts.createApiKey({ actor: testActor, accountId, environment: 'test', name: 'ci' })
  const { endpoint } = await h.services.webhooks!.endpoints.create(
    accountId,
    { url: receiver.url, description: 'orders service', eventTypes: ['*'] },
    testActor,
  )
  await h.services.webhooks!.endpoints.sendTest(accountId, endpoint.id)
  assert.equal(await runWorker(h), 1)
  await addPasskey(ada)
  await signedUpUser(h, 'vic@example.com')
  await joined(h, 'ada@example.com', 'vic@example.com', 'viewer')
  const { invitation } = await invited(h, 'ada@example.com', 'pending@example.com', 'developer')
  const ids: Record<string, string> = {
    keyId: key.id,
    endpointId: endpoint.id,
    eventId: String(receiver.received[0]!.headers['webhook-id']),
    passkeyId: (await h.services.twoFactor.status(adaId)).passkeys[0]!.id,
    userId: (await userOf(h, 'vic@example.com')).id,
    invitationId: invitation.id,
  }

  const state = async () => ({
    keys: await h.services.accounts.listApiKeys(accountId),
    endpoints: await h.services.webhooks!.endpoints.list(accountId),
    attempts: await h.services.webhooks!.deliveryLog.attempts({ accountId, endpointId: endpoint.id, limit: 50 }),
    passkeys: (await h.services.twoFactor.status(adaId)).passkeys,
    members: await h.services.teams.members(accountId),
    invitations: await h.services.teams.pendingInvitations(accountId),
    audit: await h.services.audit.list({ accountId, limit: 500 }),
    account: await h.services.accounts.getAccount(accountId),
    mail: (await mails(h, h.outbox)).length,
  })
  // Bob owns another account; every page and form of his works (he may do everything there).
  const bob = await signedUpUser(h, 'bob@example.com')
  await bob.get('/portal/keys')
  const before = await state()

  const routes = (['GET', 'POST'] as const).flatMap((method) =>
    routesWith(h.app, method, '/portal/')
      .filter((path) => path.includes(':'))
      .map((path) => ({ method, path, params: [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!) })),
  )
  const swept = routes.filter((r) => !r.params.some((p) => NOT_IDS.has(p)))
  const names = swept.map((r) => `${r.method} ${r.path}`)
  for (const expected of EXPECTED) assert.ok(names.includes(expected), `${expected} is swept: ${names.join(', ')}`)

  for (const { method, path, params } of swept) {
    const unknown = params.filter((p) => ids[p] === undefined)
    assert.deepEqual(unknown, [], `${method} ${path}: give the sweep an id of Ada's for :${unknown.join(', :')}`)
    const url = path.replace(/:(\w+)/g, (_, name: string) => ids[name]!)
    const response = method === 'GET' ? await bob.get(url) : await bob.post(url, formFor(path))
    assert.equal(response.statusCode, 404, `${method} ${path}: ${response.body}`)
    for (const secret of [receiver.url, key.prefix, 'vic@example.com', 'pending@example.com'])
      assert.ok(!response.body.includes(secret), `${method} ${path} shows nothing of Ada's account`)
  }

  assert.equal(await runWorker(h), 0, 'no event was sent again, no test event')
  assert.equal(receiver.received.length, 1)
  assert.deepEqual(await state(), before, "Ada's account is as it was")
  // Bob's token was good all along: the same forms work on his own items.
  const own = await bob.post('/portal/keys', { name: 'bob key', expires: '' })
  assert.equal(own.statusCode, 303, own.body)
})
