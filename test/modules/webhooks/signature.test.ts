// Our signatures are the Standard Webhooks ones: byte for byte what the `standardwebhooks` package signs, for one
// secret and for two (a rotation), and the package verifies them.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { newEndpointSecret, signDelivery } from '../../../src/modules/webhooks/signature.js'

test('signatures are the standardwebhooks package’s, one per secret', () => {
  const [a, b] = [newEndpointSecret(), newEndpointSecret()]
  const at = new Date()
  const body = '{"id":"evt_1","type":"webhook.test","timestamp":"2030-01-01T00:00:00.000Z","data":{"x":"é"}}'
  const headers = signDelivery({ eventId: 'evt_1', body, secrets: [a, b], at })
  assert.equal(
    headers['webhook-signature'],
    `${new Webhook(a).sign('evt_1', at, body)} ${new Webhook(b).sign('evt_1', at, body)}`,
  )
  assert.equal(headers['webhook-timestamp'], String(Math.floor(at.getTime() / 1000)))
  for (const secret of [a, b]) assert.deepEqual(new Webhook(secret).verify(body, { ...headers }), JSON.parse(body))
})
