// Events reach a real receiver on a local port, signed so the `standardwebhooks` package verifies them as is, with
// `data` byte for byte what the API answers for the same object. On the pass's backend.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import pino from 'pino'
import { Webhook } from 'standardwebhooks'
import { bearer, startHarness } from '../../../helpers/harness.js'
import { roomyAccount } from '../../../helpers/pets.js'
import { startReceiver } from '../../../helpers/webhook-receiver.js'
import { addEndpoint } from '../../../helpers/webhooks.js'

const silent = pino({ level: 'silent' })
const json = (key: string) => ({ ...bearer(key), 'content-type': 'application/json' })

test('a new pet is delivered signed, with the pet as the API answers it', async (t) => {
  const h = await startHarness(t, { realTime: true })
  const receiver = await startReceiver(t)
  const { key } = await roomyAccount(h)
  const endpoint = await addEndpoint(h, key, receiver.url)
  assert.match(endpoint.secret, /^whsec_[A-Za-z0-9+/]{43}=$/)

  const pet = await h.app.inject({
    method: 'POST',
    url: '/v1/pets',
    headers: json(key),
    payload: '{"name":"Rex","categoryId":9223372036854775807}',
  })
  assert.equal(pet.statusCode, 201)
  const worker = h.services.webhooks!.worker(silent)
  assert.equal(await worker.runOnce(), 1)
  assert.equal(receiver.received.length, 1)
  const [delivery] = receiver.received
  const verified = new Webhook(endpoint.secret).verify(delivery!.body, delivery!.headers as Record<string, string>)
  assert.equal((verified as { type: string }).type, 'pet.created')
  const alone = await h.app.inject({ url: `/v1/pets/${pet.json<{ id: string }>().id}`, headers: bearer(key) })
  assert.ok(delivery!.body.endsWith(`"data":${alone.body}}`), delivery!.body)
  assert.match(delivery!.headers['user-agent']!, /^Petstore-Webhooks\//)

  const events = await h.app.inject({ url: '/v1/events', headers: bearer(key) })
  assert.equal(events.statusCode, 200)
  assert.equal(events.body, `[${delivery!.body}]`)
  const one = await h.app.inject({ url: `/v1/events/${delivery!.headers['webhook-id']}`, headers: bearer(key) })
  assert.equal(one.body, delivery!.body)
  assert.equal(await worker.runOnce(), 0, 'delivered once')
})

test('an account with no subscribed endpoint records nothing', async (t) => {
  const h = await startHarness(t, { realTime: true })
  const receiver = await startReceiver(t)
  const { key } = await roomyAccount(h)
  await addEndpoint(h, key, receiver.url, ['order.created'])
  await h.app.inject({ method: 'POST', url: '/v1/pets', headers: json(key), payload: { name: 'Rex', categoryId: 1 } })
  const events = await h.app.inject({ url: '/v1/events', headers: bearer(key) })
  assert.equal(events.body, '[]')
  const other = await roomyAccount(h)
  await h.app.inject({
    method: 'POST',
    url: '/v1/pets',
    headers: json(other.key),
    payload: { name: 'Tom', categoryId: 1 },
  })
  assert.equal((await h.app.inject({ url: '/v1/events', headers: bearer(other.key) })).body, '[]')
  assert.equal(await h.services.webhooks!.worker(silent).runOnce(), 0)
  assert.equal(receiver.received.length, 0)
})

test('after a rotation each delivery is signed with the new secret and, for its grace, the old one', async (t) => {
  const h = await startHarness(t, { realTime: true })
  const receiver = await startReceiver(t)
  const { key } = await roomyAccount(h)
  const endpoint = await addEndpoint(h, key, receiver.url)
  const rotate = async (payload: object) => {
    const res = await h.app.inject({
      method: 'POST',
      url: `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`,
      headers: json(key),
      payload,
    })
    assert.equal(res.statusCode, 200, res.body)
    return res.json<{ secret: string; previousSecretExpiresAt?: string }>()
  }
  const worker = h.services.webhooks!.worker(silent)
  const testEvent = async () => {
    const sent = await h.app.inject({
      method: 'POST',
      url: `/v1/webhook-endpoints/${endpoint.id}/test`,
      headers: bearer(key),
    })
    assert.equal(sent.statusCode, 202, sent.body)
    await worker.runOnce()
    return receiver.received.at(-1)!
  }
  const verifies = (secret: string, r: { body: string; headers: object }) => {
    try {
      new Webhook(secret).verify(r.body, r.headers as Record<string, string>)
      return true
    } catch {
      return false
    }
  }

  const second = await rotate({})
  assert.notEqual(second.secret, endpoint.secret)
  const day = Date.parse(second.previousSecretExpiresAt!) - Date.now()
  assert.ok(day > 86_300_000 && day <= 86_400_000, 'the old secret signs for a day by default')
  const both = await testEvent()
  assert.equal(String(both.headers['webhook-signature']).split(' ').length, 2)
  assert.ok(verifies(endpoint.secret, both) && verifies(second.secret, both))
  assert.equal(JSON.parse(both.body).type, 'webhook.test')

  const third = await rotate({ graceSeconds: 0 })
  assert.equal(third.previousSecretExpiresAt, undefined)
  const one = await testEvent()
  assert.equal(String(one.headers['webhook-signature']).split(' ').length, 1)
  assert.ok(verifies(third.secret, one) && !verifies(second.secret, one) && !verifies(endpoint.secret, one))
  const tooLong = await h.app.inject({
    method: 'POST',
    url: `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`,
    headers: json(key),
    payload: { graceSeconds: 7 * 86_400 + 1 },
  })
  assert.equal(tooLong.statusCode, 400)
})
