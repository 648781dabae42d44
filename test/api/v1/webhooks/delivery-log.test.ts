// An endpoint's delivery log through the API, and sending events again (issue 36), on the pass's backend: every
// attempt newest first with its status or error class and the answer's first 1 KiB, paged with signed cursors; one
// event sent again (same webhook-id); every failed event since a time sent again; another account's ids are 404s.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import pino from 'pino'
import { bearer, errorOf, startHarness } from '../../../helpers/harness.js'
import { roomyAccount } from '../../../helpers/pets.js'
import { startReceiver } from '../../../helpers/webhook-receiver.js'
import { addEndpoint } from '../../../helpers/webhooks.js'

const json = (key: string) => ({ ...bearer(key), 'content-type': 'application/json' })

test('the log shows every attempt; an event is sent again; failed ones since a time are recovered', async (t) => {
  const h = await startHarness(t, { env: { WEBHOOK_RETRY_SCHEDULE: '10s' } })
  let answer = 500
  const receiver = await startReceiver(t, () => ({ status: answer, body: 'x'.repeat(3000) }))
  const { key } = await roomyAccount(h)
  const { id } = await addEndpoint(h, key, receiver.url)
  const worker = h.services.webhooks!.worker(pino({ level: 'silent' }))
  for (const name of ['a', 'b', 'c'])
    await h.app.inject({ method: 'POST', url: '/v1/pets', headers: json(key), payload: { name, categoryId: 1 } })
  await worker.runOnce()
  h.clock.advance(10_000)
  await worker.runOnce()
  assert.equal(receiver.received.length, 6, 'two attempts of each, then failed')

  const first = await h.app.inject({ url: `/v1/webhook-endpoints/${id}/attempts?limit=4`, headers: bearer(key) })
  assert.equal(first.statusCode, 200, first.body)
  const attempts = first.json<{ id: string; statusCode: number; errorClass: string; responseExcerpt: string }[]>()
  assert.equal(attempts.length, 4)
  assert.deepEqual([attempts[0]!.statusCode, attempts[0]!.errorClass], [500, 'http_status'])
  assert.equal(attempts[0]!.responseExcerpt.length, 1024)
  assert.ok(BigInt(attempts[0]!.id) > BigInt(attempts[3]!.id), 'newest first')
  const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))![1]!
  const rest = await h.app.inject({ url: next.replace(h.config.publicUrl, ''), headers: bearer(key) })
  assert.equal(rest.json<unknown[]>().length, 2)
  assert.equal(rest.headers.link, undefined)

  answer = 204
  const eventId = String(receiver.received[0]!.headers['webhook-id'])
  const resent = await h.app.inject({
    method: 'POST',
    url: `/v1/webhook-endpoints/${id}/resend`,
    headers: json(key),
    payload: { eventId },
  })
  assert.equal(resent.statusCode, 202, resent.body)
  await worker.runOnce()
  assert.equal(receiver.received.at(-1)!.headers['webhook-id'], eventId)
  assert.equal(receiver.received.length, 7)

  const recover = (since: string) =>
    h.app.inject({ method: 'POST', url: `/v1/webhook-endpoints/${id}/recover`, headers: json(key), payload: { since } })
  const recovered = await recover('2000-01-01T00:00:00Z')
  assert.deepEqual(recovered.json(), { count: 2 }, 'the two still failed, not the one sent again')
  await worker.runOnce()
  assert.equal(receiver.received.length, 9)
  assert.deepEqual((await recover('2000-01-01T00:00:00Z')).json(), { count: 0 })
  assert.equal(errorOf(await recover('yesterday')).code, 'invalid_body')
})

test("another account's endpoint or event is a 404", async (t) => {
  const h = await startHarness(t)
  const owner = await roomyAccount(h)
  const other = await roomyAccount(h)
  const mine = await addEndpoint(h, owner.key)
  const theirs = await addEndpoint(h, other.key)
  const sent = await h.app.inject({
    method: 'POST',
    url: `/v1/webhook-endpoints/${mine.id}/test`,
    headers: bearer(owner.key),
  })
  const eventId = sent.json<{ id: string }>().id
  const log = await h.app.inject({ url: `/v1/webhook-endpoints/${mine.id}/attempts`, headers: bearer(other.key) })
  assert.deepEqual([log.statusCode, errorOf(log).code], [404, 'webhook_endpoint_not_found'])
  const resend = await h.app.inject({
    method: 'POST',
    url: `/v1/webhook-endpoints/${theirs.id}/resend`,
    headers: json(other.key),
    payload: { eventId },
  })
  assert.deepEqual([resend.statusCode, errorOf(resend).code], [404, 'event_not_found'], 'an event of another account')
  const event = await h.app.inject({ url: `/v1/events/${eventId}`, headers: bearer(other.key) })
  assert.deepEqual([event.statusCode, errorOf(event).code], [404, 'event_not_found'])
})
