// verifyWebhook / ps.webhooks.verify without a service: deliveries signed by the service's own signer
// (src/modules/webhooks/signature.ts) and by the `standardwebhooks` package are accepted, with either of two secrets;
// anything altered is `bad_signature`, a stale or early timestamp `timestamp`, and missing headers, bad secrets and
// bodies that are no event `malformed`. int64 fields of `data` come out as exact bigints; the body may be a string or
// bytes, the headers a Fetch Headers or Node.js's object.
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import { test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import {
  Petstore,
  PetstoreError,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from '../../sdk/src/index.js'
import { newEndpointSecret, signDelivery } from '../../src/modules/webhooks/signature.js'

const INT64_MAX = 9223372036854775807n
const body = (id = 'evt_1') =>
  `{"id":"${id}","type":"pet.created","timestamp":"2030-01-01T00:00:00.000Z",` +
  '"data":{"id":9223372036854775807,"name":"Rex","categoryId":9223372036854775806,"status":"available"}}'
const signed = (raw: string, secrets: string[], at = new Date(), eventId = 'evt_1') => ({
  ...signDelivery({ eventId, body: raw, secrets, at }),
})

async function reasonOf(promise: Promise<unknown>): Promise<WebhookVerificationReason> {
  const err = await promise.then(
    () => assert.fail('expected a WebhookVerificationError'),
    (thrown: unknown) => thrown,
  )
  assert.ok(err instanceof WebhookVerificationError, String(err))
  assert.ok(!(err instanceof PetstoreError), 'not an API error')
  assert.equal(err.name, 'WebhookVerificationError')
  return err.reason
}

test('a delivery signed by the service verifies: the event, int64 fields of data exact as bigint', async () => {
  const secret = newEndpointSecret()
  const headers = signed(body(), [secret])
  const event = await verifyWebhook(body(), headers, secret)
  assert.deepEqual(event, {
    id: 'evt_1',
    type: 'pet.created',
    timestamp: '2030-01-01T00:00:00.000Z',
    data: { id: INT64_MAX, name: 'Rex', categoryId: INT64_MAX - 1n, status: 'available' },
  })
  // ps.webhooks.verify is the same function, on a client.
  const ps = new Petstore({ apiKey: 'ps_test_x' })
  assert.deepEqual(await ps.webhooks.verify(body(), headers, secret), event)
  // The union narrows on `type` (checked by the type-check): a Pet with a bigint id.
  if (event.type !== 'pet.created') assert.fail(event.type)
  const id: bigint = event.data.id
  const name: string = event.data.name
  assert.deepEqual([id, name], [INT64_MAX, 'Rex'])
})

test('a delivery signed by the standardwebhooks package verifies, and ours verifies with that package', async () => {
  const secret = newEndpointSecret()
  const at = new Date()
  const signature = new Webhook(secret).sign('evt_1', at, body())
  const headers = {
    'webhook-id': 'evt_1',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  }
  assert.equal((await verifyWebhook(body(), headers, secret)).id, 'evt_1')
  const ours = signed(body(), [secret])
  assert.equal((new Webhook(secret).verify(body(), ours) as { id: string }).id, 'evt_1')
})

test('during a rotation either secret verifies; a secret of neither is bad_signature', async () => {
  const [oldSecret, newSecret, other] = [newEndpointSecret(), newEndpointSecret(), newEndpointSecret()]
  const headers = signed(body(), [newSecret, oldSecret])
  assert.equal(headers['webhook-signature'].split(' ').length, 2)
  for (const secrets of [oldSecret, newSecret, [other, oldSecret], [newSecret, other]])
    assert.equal((await verifyWebhook(body(), headers, secrets)).id, 'evt_1')
  assert.equal(await reasonOf(verifyWebhook(body(), headers, other)), 'bad_signature')
  // One signature made with the old secret only, verified by a receiver that already has both.
  const onlyOld = signed(body(), [oldSecret])
  assert.equal((await verifyWebhook(body(), onlyOld, [newSecret, oldSecret])).id, 'evt_1')
})

test('an altered body, id, timestamp or signature is bad_signature', async () => {
  const secret = newEndpointSecret()
  const headers = signed(body(), [secret])
  const tampered = [
    { raw: body().replace('Rex', 'Rey'), headers },
    { raw: `${body()} `, headers },
    { raw: body(), headers: { ...headers, 'webhook-id': 'evt_2' } },
    { raw: body(), headers: { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1) } },
    { raw: body(), headers: { ...headers, 'webhook-signature': headers['webhook-signature'].replace('v1,', 'v2,') } },
    { raw: body(), headers: { ...headers, 'webhook-signature': 'v1,AAAA' } },
    { raw: body(), headers: { ...headers, 'webhook-signature': 'v1,not base64!' } },
  ]
  for (const { raw, headers: sent } of tampered)
    assert.equal(await reasonOf(verifyWebhook(raw, sent, secret)), 'bad_signature', JSON.stringify(sent))
})

test('a timestamp more than 5 minutes off is `timestamp`; toleranceSeconds and now move the window', async () => {
  const secret = newEndpointSecret()
  const sixMinutes = 6 * 60_000
  const stale = signed(body(), [secret], new Date(Date.now() - sixMinutes))
  const early = signed(body(), [secret], new Date(Date.now() + sixMinutes))
  assert.equal(await reasonOf(verifyWebhook(body(), stale, secret)), 'timestamp')
  assert.equal(await reasonOf(verifyWebhook(body(), early, secret)), 'timestamp')
  assert.equal((await verifyWebhook(body(), stale, secret, { toleranceSeconds: 400 })).id, 'evt_1')
  assert.equal((await verifyWebhook(body(), stale, secret, { now: new Date(Date.now() - sixMinutes) })).id, 'evt_1')
  const justIn = signed(body(), [secret], new Date(Date.now() - 290_000))
  assert.equal((await verifyWebhook(body(), justIn, secret)).id, 'evt_1')
  // A forged delivery with an old timestamp is still bad_signature: the signature is checked first.
  const forged = { ...stale, 'webhook-signature': signed(body(), [newEndpointSecret()])['webhook-signature'] }
  assert.equal(await reasonOf(verifyWebhook(body(), forged, secret)), 'bad_signature')
  await assert.rejects(verifyWebhook(body(), stale, secret, { toleranceSeconds: -1 }), RangeError)
  await assert.rejects(verifyWebhook(body(), stale, secret, { now: new Date(Number.NaN) }), RangeError)
})

test('missing headers, bad secrets and bodies that are not an event are malformed', async () => {
  const secret = newEndpointSecret()
  const headers = signed(body(), [secret])
  for (const name of Object.keys(headers)) {
    const without = Object.fromEntries(Object.entries(headers).filter(([key]) => key !== name))
    assert.equal(await reasonOf(verifyWebhook(body(), without, secret)), 'malformed', name)
    assert.equal(await reasonOf(verifyWebhook(body(), { ...headers, [name]: '' }, secret)), 'malformed', name)
  }
  assert.equal(await reasonOf(verifyWebhook(body(), {}, secret)), 'malformed')
  const notSeconds = { ...headers, 'webhook-timestamp': '2030-01-01T00:00:00Z' }
  assert.equal(await reasonOf(verifyWebhook(body(), notSeconds, secret)), 'malformed')
  const badSecrets = ['', 'whsec_', secret.slice('whsec_'.length), 'whsec_!!!!', `${secret}x`, 'ps_live_abc']
  for (const bad of badSecrets) {
    const err = await verifyWebhook(body(), headers, bad).catch((thrown: unknown) => thrown)
    assert.ok(err instanceof WebhookVerificationError && err.reason === 'malformed', bad)
    assert.ok(bad.length < 10 || !err.message.includes(bad), 'the secret is not in the message')
  }
  assert.equal(await reasonOf(verifyWebhook(body(), headers, [])), 'malformed')
  assert.equal(await reasonOf(verifyWebhook(body(), headers, [secret, 'nope'])), 'malformed')

  // Signed, but not an event: not JSON, not an object, fields missing, or an id other than the webhook-id.
  const notEvents = [
    'not json',
    '[1,2]',
    '{"id":"evt_1","type":"pet.created","timestamp":"2030-01-01T00:00:00.000Z"}',
    '{"id":"evt_1","type":7,"timestamp":"2030-01-01T00:00:00.000Z","data":{}}',
    body('evt_2'),
  ]
  for (const raw of notEvents) {
    const err = await verifyWebhook(raw, signed(raw, [secret]), secret).catch((thrown: unknown) => thrown)
    assert.ok(err instanceof WebhookVerificationError && err.reason === 'malformed', raw)
  }
  // Signed bytes that are not UTF-8 (signed here over the bytes themselves, as no signer of text can).
  const notUtf8 = Buffer.from([0xff, 0xfe, 0x7b])
  const timestamp = headers['webhook-timestamp']
  const mac = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(Buffer.concat([Buffer.from(`evt_1.${timestamp}.`), notUtf8]))
    .digest('base64')
  const bytesHeaders = { 'webhook-id': 'evt_1', 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${mac}` }
  assert.equal(await reasonOf(verifyWebhook(new Uint8Array(notUtf8), bytesHeaders, secret)), 'malformed')
})

test('the body as bytes, the headers as a Fetch Headers or Node.js request headers, names in any case', async () => {
  const [secret, other] = [newEndpointSecret(), newEndpointSecret()]
  const headers = signed(body(), [secret, other])
  const bytes = new TextEncoder().encode(body())
  assert.deepEqual(await verifyWebhook(bytes, headers, secret), await verifyWebhook(body(), headers, secret))
  assert.equal((await verifyWebhook(Buffer.from(body()), headers, secret)).id, 'evt_1')
  assert.equal((await verifyWebhook(body(), new Headers(headers), secret)).id, 'evt_1')
  const node: IncomingHttpHeaders = { ...headers, 'content-type': 'application/json', 'set-cookie': ['a=b'] }
  assert.equal((await verifyWebhook(body(), node, secret)).id, 'evt_1')
  const mixed = {
    'Webhook-Id': headers['webhook-id'],
    'WEBHOOK-TIMESTAMP': headers['webhook-timestamp'],
    'webhook-Signature': headers['webhook-signature'],
  }
  assert.equal((await verifyWebhook(body(), mixed, secret)).id, 'evt_1')
  // The two signatures as two header lines: Node.js's array, and the `, `-joined value of a Fetch Headers.
  const [first, second] = headers['webhook-signature'].split(' ')
  const lines = { ...headers, 'webhook-signature': [first!, second!] }
  assert.equal((await verifyWebhook(body(), lines, other)).id, 'evt_1')
  const fetchLines = new Headers({ 'webhook-id': 'evt_1', 'webhook-timestamp': headers['webhook-timestamp'] })
  fetchLines.append('webhook-signature', first!)
  fetchLines.append('webhook-signature', second!)
  assert.equal((await verifyWebhook(body(), fetchLines, other)).id, 'evt_1')
})

test('every event type narrows to its data (a compile-time check, run on sample events)', () => {
  const describe = (event: WebhookEvent): string => {
    switch (event.type) {
      case 'pet.created':
        return `pet ${event.data.id satisfies bigint} ${event.data.name}`
      case 'order.created':
      case 'order.deleted':
        return `order ${event.data.id satisfies bigint} of pet ${event.data.petId satisfies bigint}`
      case 'order.updated':
        return `order ${event.data.id satisfies bigint} ${event.data.previous.status} → ${event.data.status}`
      case 'message.delivered':
      case 'message.failed':
        return `message ${event.data.id satisfies string} ${event.data.status}`
      case 'webhook.test':
        return `test for ${event.data.endpointId}`
      default:
        return `a type this client does not know: ${(event as { type: string }).type}`
    }
  }
  const at = '2030-01-01T00:00:00.000Z'
  const order = { id: 2n, petId: 1n, quantity: 1, status: 'approved' as const, complete: false, createdAt: at }
  assert.equal(
    describe({ id: 'evt_1', type: 'order.updated', timestamp: at, data: { ...order, previous: { status: 'placed' } } }),
    'order 2 placed → approved',
  )
  assert.equal(
    describe({ id: 'evt_2', type: 'message.failed', timestamp: at, data: { id: 'msg_1', status: 'failed' } as never }),
    'message msg_1 failed',
  )
})
