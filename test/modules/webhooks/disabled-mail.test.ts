// When the worker disables an endpoint (a 410, or failing for WEBHOOK_DISABLE_AFTER), its account's owner is
// mailed: what was disabled, why, and where to enable it again. On the pass's backend.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import pino from 'pino'
import { testActor } from '../../helpers/actors.js'
import { linkIn, mails, ORIGIN, portalHarness, signedUpUser } from '../../helpers/portal.js'
import { startReceiver } from '../../helpers/webhook-receiver.js'
import { addEndpoint } from '../../helpers/webhooks.js'

test("the owner is mailed when an endpoint is disabled for a 410, with a link to the endpoint's page", async (t) => {
  const h = await portalHarness(t)
  const receiver = await startReceiver(t, () => ({ status: 410 }))
  await signedUpUser(h, 'owner@example.com')
  const { account_id: accountId } = await h.handle.db
    .selectFrom('portal_users')
    .select('account_id')
    .where('email', '=', 'owner@example.com')
    .executeTakeFirstOrThrow()
  const { key } = await h.services.accounts.createApiKey({ actor: testActor, accountId, environment: 'test' })
  const endpoint = await addEndpoint(h, key, `${receiver.url}?caf\u00e9=1`)
  const before = (await mails(h, h.outbox)).length
  await h.services.accounts.createApiKey({ actor: testActor, accountId, environment: 'test', name: 'an event' })
  await h.services.webhooks!.worker(pino({ level: 'silent' })).runOnce()
  assert.equal(receiver.received.length, 1)
  const sent = (await mails(h, h.outbox)).slice(before)
  assert.equal(sent.length, 1)
  const [mail] = sent
  assert.match(mail!, /^To: owner@example\.com/m)
  assert.match(mail!, /Subject: A webhook endpoint of your account was disabled/)
  assert.match(mail!, /answered 410 Gone/)
  assert.ok(mail!.includes('caf%C3%A9=1'), 'the URL in 7-bit text')
  assert.equal(linkIn(mail!, `/portal/webhooks/${endpoint.id}`), `${ORIGIN}/portal/webhooks/${endpoint.id}`)
})
