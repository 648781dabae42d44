// Delivery through the `webhook` sink (issue 4): an HTTP POST to MESSAGES_WEBHOOK_URL signed per the
// Standard Webhooks specification. The receiver here is a real HTTP server started by the test, and it
// checks the signature the way any receiver would: with the `standardwebhooks` package.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import {
  getMessage,
  inTurn,
  newWebhookSecret,
  sendMessage,
  startMessagesHarness,
  startReceiver,
  webhookEnv,
  type ReceivedWebhook,
} from '../../helpers/messages-harness.js'

/** The three Standard Webhooks headers as the receiver got them. */
function webhookHeaders(request: ReceivedWebhook): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const value = request.headers[name]
    assert.equal(typeof value, 'string', `${name} missing: ${JSON.stringify(request.headers)}`)
    headers[name] = value as string
  }
  return headers
}

async function setup(t: Parameters<typeof startMessagesHarness>[0], answers: Parameters<typeof inTurn>) {
  const receiver = await startReceiver(t, inTurn(...answers))
  const secret = newWebhookSecret()
  const h = await startMessagesHarness(t, { env: webhookEnv(receiver.url, secret) })
  const account = await h.newAccount()
  return { h, receiver, secret, account }
}

test(
  'the worker POSTs the message to the receiver, signed; ' + 'the receiver verifies it with standardwebhooks',
  async (t) => {
    const { h, receiver, secret, account } = await setup(t, [200])
    const sent = await sendMessage(h, account.key, 'Hello, webhook 👋')
    assert.equal(receiver.received.length, 0, 'nothing is sent before the worker runs')

    assert.equal(await h.worker.runOnce(), 1)
    assert.equal(receiver.received.length, 1)
    const [request] = receiver.received as [ReceivedWebhook]
    assert.equal(request.method, 'POST')
    assert.equal(request.url, '/hooks/messages')
    assert.match(String(request.headers['content-type']), /^application\/json/)

    const headers = webhookHeaders(request)
    assert.equal(headers['webhook-id'], sent.id)
    assert.match(headers['webhook-signature']!, /^v1,[A-Za-z0-9+/]+=*$/)
    const payload = new Webhook(secret).verify(request.body, headers) as Record<string, any>
    assert.equal(payload.type, 'message.created')
    assert.equal(payload.data.id, sent.id)
    assert.equal(payload.data.message, 'Hello, webhook 👋')
    assert.equal(payload.data.createdAt, sent.createdAt)

    assert.deepEqual(await getMessage(h, account.key, sent.id), { ...sent, status: 'delivered' })
  },
)

test('the signature fails to verify with another secret, or once the body or id is altered', async (t) => {
  const { h, receiver, secret, account } = await setup(t, [200])
  await sendMessage(h, account.key, 'tamper with me')
  await h.worker.runOnce()
  const [request] = receiver.received as [ReceivedWebhook]
  const headers = webhookHeaders(request)
  // The genuine request verifies…
  assert.doesNotThrow(() => new Webhook(secret).verify(request.body, headers))
  // …and nothing else does.
  const otherSecret = `whsec_${randomBytes(32).toString('base64')}`
  assert.throws(() => new Webhook(otherSecret).verify(request.body, headers), /signature/i)
  assert.throws(() => new Webhook(secret).verify(request.body.replace('tamper', 'Tamper'), headers), /signature/i)
  assert.throws(() => new Webhook(secret).verify(request.body, { ...headers, 'webhook-id': 'msg_other' }), /signature/i)
})

test('the signature timestamp is the real time of sending (within the receiver tolerance)', async (t) => {
  const { h, receiver, account } = await setup(t, [200])
  await sendMessage(h, account.key, 'when')
  const before = Math.floor(Date.now() / 1000)
  await h.worker.runOnce()
  const after = Math.floor(Date.now() / 1000)
  const stamp = Number(webhookHeaders(receiver.received[0]!)['webhook-timestamp'])
  assert.ok(
    Number.isInteger(stamp) && stamp >= before && stamp <= after,
    `webhook-timestamp ${stamp} not in [${before}, ${after}]`,
  )
})

test('each message is its own webhook, in the order accepted, each with its own id', async (t) => {
  const { h, receiver, secret, account } = await setup(t, [200])
  const sent = [
    await sendMessage(h, account.key, 'one'),
    await sendMessage(h, account.key, 'two'),
    await sendMessage(h, account.key, 'three'),
  ]
  assert.equal(await h.worker.runOnce(), 3)
  const verified = receiver.received.map(
    (r) => new Webhook(secret).verify(r.body, webhookHeaders(r)) as { data: { id: string; message: string } },
  )
  assert.deepEqual(
    verified.map((p) => [p.data.id, p.data.message]),
    sent.map((m) => [m.id, m.message]),
  )
  assert.deepEqual(
    receiver.received.map((r) => r.headers['webhook-id']),
    sent.map((m) => m.id),
  )
})

test(
  'a receiver that fails once then succeeds: ' +
    'retried after the backoff, then delivered; same webhook-id, both signed',
  async (t) => {
    const { h, receiver, secret, account } = await setup(t, [500, 200])
    const sent = await sendMessage(h, account.key, 'second time lucky')

    assert.equal(await h.worker.runOnce(), 1)
    assert.equal(receiver.received.length, 1)
    assert.equal((await getMessage(h, account.key, sent.id)).status, 'queued')

    h.clock.advance(h.config.webhookRetrySchedule[0]!)
    assert.equal(await h.worker.runOnce(), 1)
    assert.equal(receiver.received.length, 2)
    assert.deepEqual(await getMessage(h, account.key, sent.id), { ...sent, status: 'delivered' })

    for (const request of receiver.received) {
      assert.equal(
        request.headers['webhook-id'],
        sent.id,
        'the id stays the same across attempts, so receivers can drop duplicates',
      )
      assert.doesNotThrow(() => new Webhook(secret).verify(request.body, webhookHeaders(request)))
    }
    h.clock.advance(24 * 60 * 60 * 1000)
    assert.equal(await h.worker.runOnce(), 0, 'a delivered message is not sent again')
    assert.equal(receiver.received.length, 2)
  },
)

test('the secret may be given without its whsec_ prefix', async (t) => {
  const receiver = await startReceiver(t, inTurn(200))
  const raw = randomBytes(32).toString('base64')
  const h = await startMessagesHarness(t, { env: webhookEnv(receiver.url, raw) })
  const { key } = await h.newAccount()
  await sendMessage(h, key, 'no prefix')
  await h.worker.runOnce()
  const [request] = receiver.received as [ReceivedWebhook]
  assert.doesNotThrow(() => new Webhook(`whsec_${raw}`).verify(request.body, webhookHeaders(request)))
})
