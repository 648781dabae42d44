// ps.webhooks and ps.events against the real service, on the pass's backend (issue 36): endpoints made, read,
// changed and deleted (the POSTs without an Idempotency-Key, a create not retried after a lost answer); deliveries
// to a local receiver checked with ps.webhooks.verify, typed by their `type`; events newest first across pages;
// the delivery log, resending and recovering; a rotated secret and its grace.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import pino from 'pino'
import { ConnectionError, NotFoundError, type WebhookEvent, WebhookVerificationError } from '../../sdk/src/index.js'
import { errorAnswer, startFaultProxy } from '../helpers/fault-proxy.js'
import { startHarness } from '../helpers/harness.js'
import { roomyAccount } from '../helpers/pets.js'
import { clientOf, thrownBy } from '../helpers/sdk.js'
import { startReceiver } from '../helpers/webhook-receiver.js'

const INT64_MAX = 9223372036854775807n
const silent = pino({ level: 'silent' })

test('endpoints: create with its secret, list, get, update, delete; no Idempotency-Key; 404s', async (t) => {
  const h = await startHarness(t, { listen: true })
  const { key } = await roomyAccount(h)
  const proxy = await startFaultProxy(t, h.baseUrl)
  const { ps } = clientOf(proxy.origin, key)
  const url = 'http://127.0.0.1:9/hooks'
  const made = await ps.webhooks.endpoints.create({ url, eventTypes: ['pet.created'], description: 'sdk' })
  assert.match(made.secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
  assert.deepEqual(
    [made.id.startsWith('ep_'), made.url, made.eventTypes, made.description, made.enabled],
    [true, url, ['pet.created'], 'sdk', true],
  )
  const { secret, ...endpoint } = made
  assert.deepEqual(await ps.webhooks.endpoints.list(), [endpoint])
  assert.deepEqual(await ps.webhooks.endpoints.get(made.id), endpoint)
  const changed = await ps.webhooks.endpoints.update(made.id, { enabled: false, eventTypes: ['*'], url: undefined })
  assert.deepEqual(
    [changed.enabled, changed.disabledReason, changed.eventTypes, changed.url],
    [false, 'integrator', ['*'], url],
  )
  assert.deepEqual(await ps.webhooks.endpoints.get(made.id), changed)

  const posts = proxy.requests.filter((r) => r.method === 'POST')
  assert.equal(posts.length, 1)
  assert.equal(posts[0]!.headers['idempotency-key'], undefined, 'the service takes none for it')
  // @ts-expect-error: the options of these POSTs have no idempotencyKey
  const withKey = ps.webhooks.endpoints.create({ url, eventTypes: ['*'] }, { idempotencyKey: 'k' })
  await assert.rejects(withKey, /takes no idempotencyKey/)

  await ps.webhooks.endpoints.delete(made.id)
  const missing = await thrownBy(() => ps.webhooks.endpoints.get(made.id))
  assert.ok(missing instanceof NotFoundError, String(missing))
  assert.equal(missing.code, 'webhook_endpoint_not_found')
  await assert.rejects(ps.webhooks.endpoints.delete(made.id), NotFoundError)
  await assert.rejects(ps.webhooks.endpoints.sendTest(made.id), { code: 'webhook_endpoint_not_found' })
  await assert.rejects(ps.events.get('evt_missing'), { name: 'NotFoundError', code: 'event_not_found' })
  assert.deepEqual(await ps.webhooks.endpoints.list(), [])
  assert.equal(secret.length, 50)
})

test('a create whose answer is lost is not retried (one endpoint); after a 429 it is; a resend is', async (t) => {
  const h = await startHarness(t, { listen: true })
  const { key } = await roomyAccount(h)
  const proxy = await startFaultProxy(t, h.baseUrl)
  const { ps } = clientOf(proxy.origin, key)
  const creates = () => proxy.requests.filter((r) => r.method === 'POST' && r.url === '/v1/webhook-endpoints')
  proxy.next({ drop: 'after-answer' })
  const lost = await thrownBy(() => ps.webhooks.endpoints.create({ url: 'http://127.0.0.1:9/a', eventTypes: ['*'] }))
  assert.ok(lost instanceof ConnectionError, String(lost))
  assert.equal(creates().length, 1, 'not retried: a retry could make a second endpoint')
  const [first] = await ps.webhooks.endpoints.list()
  assert.equal(first?.url, 'http://127.0.0.1:9/a', 'the lost answer had made it')

  proxy.next(errorAnswer(429, 'rate_limit_exceeded', { 'retry-after': '0' }))
  const second = await ps.webhooks.endpoints.create({ url: 'http://127.0.0.1:9/b', eventTypes: ['*'] })
  assert.equal(creates().length, 3, 'a 429 shows nothing was done: retried')
  assert.equal((await ps.webhooks.endpoints.list()).length, 2)

  const event = await ps.webhooks.endpoints.sendTest(second.id)
  proxy.next({ drop: 'after-answer' })
  assert.deepEqual(await ps.webhooks.endpoints.resend(second.id, event.id), { count: 1 })
  const resends = proxy.requests.filter((r) => r.url.endsWith('/resend'))
  assert.equal(resends.length, 2, 'sending an event again twice is harmless: retried')
  assert.equal(resends[1]!.headers['x-petstore-retry-count'], '1')
  const posts = proxy.requests.filter((r) => r.method === 'POST')
  assert.deepEqual(
    posts.map((r) => r.headers['idempotency-key']),
    posts.map(() => undefined),
  )
})

test('deliveries of a test event and a pet verify, typed by type; a rotation signs with both', async (t) => {
  const h = await startHarness(t, { listen: true, realTime: true })
  const receiver = await startReceiver(t)
  const { key } = await roomyAccount(h)
  const { ps } = clientOf(h.baseUrl, key)
  const worker = h.services.webhooks!.worker(silent)
  const endpoint = await ps.webhooks.endpoints.create({ url: receiver.url, eventTypes: ['*'] })
  const deliver = async (): Promise<{ body: string; headers: Record<string, string | string[] | undefined> }> => {
    assert.equal(await worker.runOnce(), 1)
    return receiver.received.at(-1)!
  }

  const sent = await ps.webhooks.endpoints.sendTest(endpoint.id)
  assert.equal(sent.type, 'webhook.test')
  const tested = await deliver()
  const event = await ps.webhooks.verify(tested.body, tested.headers, endpoint.secret)
  if (event.type !== 'webhook.test') assert.fail(event.type)
  assert.equal(event.data.endpointId, endpoint.id)
  assert.equal(event.id, tested.headers['webhook-id'])
  assert.deepEqual(event, sent)

  const pet = await ps.pets.create({ name: 'Rex', categoryId: INT64_MAX })
  const delivery = await deliver()
  const created: WebhookEvent = await ps.webhooks.verify(delivery.body, delivery.headers, endpoint.secret)
  if (created.type !== 'pet.created') assert.fail(created.type)
  const id: bigint = created.data.id
  assert.deepEqual([id, created.data.categoryId, created.data.name], [pet.id, INT64_MAX, 'Rex'])
  assert.deepEqual(created.data, pet)
  assert.deepEqual(await ps.events.get(created.id), created)

  const rotated = await ps.webhooks.endpoints.rotateSecret(endpoint.id)
  assert.notEqual(rotated.secret, endpoint.secret)
  assert.ok(rotated.previousSecretExpiresAt, 'the old secret signs for a day')
  await ps.webhooks.endpoints.sendTest(endpoint.id)
  const both = await deliver()
  for (const secrets of [endpoint.secret, rotated.secret, [rotated.secret, endpoint.secret]])
    assert.equal((await ps.webhooks.verify(both.body, both.headers, secrets)).type, 'webhook.test')

  const third = await ps.webhooks.endpoints.rotateSecret(endpoint.id, { graceSeconds: 0 })
  assert.equal(third.previousSecretExpiresAt, undefined)
  await ps.webhooks.endpoints.sendTest(endpoint.id)
  const one = await deliver()
  assert.equal((await ps.webhooks.verify(one.body, one.headers, third.secret)).type, 'webhook.test')
  const old = await thrownBy(() => ps.webhooks.verify(one.body, one.headers, [rotated.secret, endpoint.secret]))
  assert.ok(old instanceof WebhookVerificationError && old.reason === 'bad_signature', String(old))
})

test('ps.events.list: newest first across pages of one; listPage; the type filter', async (t) => {
  const h = await startHarness(t, { listen: true })
  const { key } = await roomyAccount(h)
  const { ps, responses } = clientOf(h.baseUrl, key)
  const endpoint = await ps.webhooks.endpoints.create({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['*'] })
  const pets = []
  for (const name of ['a', 'b', 'c']) pets.push(await ps.pets.create({ name, categoryId: 1 }))
  const test = await ps.webhooks.endpoints.sendTest(endpoint.id)

  const before = responses.length
  const events: WebhookEvent[] = []
  for await (const event of ps.events.list({ limit: 1 })) events.push(event)
  assert.deepEqual(
    events.map((e) => (e.type === 'pet.created' ? e.data.id : e.id)),
    [test.id, ...pets.map((p) => p.id).reverse()],
  )
  assert.ok(responses.length - before >= 4, 'one page a request')
  assert.ok(responses.slice(before).every((r) => /\/v1\/events\?limit=1/.test(r.url)))

  const page = await ps.events.listPage({ limit: 2 })
  assert.deepEqual(page.data, events.slice(0, 2))
  const next = await ps.events.listPage({ limit: 2, cursor: page.nextCursor })
  assert.deepEqual(next.data, events.slice(2))
  assert.equal(next.nextCursor, undefined)
  // With `type`, typed as that type's events: `data` is a Pet, without narrowing. (One page: the service refuses
  // the cursor of a page filtered by type as invalid_cursor, src/api/contract/cursor.ts matching it with `\w*`.)
  const petIds: bigint[] = []
  for await (const event of ps.events.list({ type: 'pet.created', limit: 10 })) petIds.push(event.data.id)
  assert.deepEqual(petIds, pets.map((p) => p.id).reverse())
})

test('attempts newest first across pages; recover sends the failed event again, resend once more', async (t) => {
  const h = await startHarness(t, { listen: true, env: { WEBHOOK_RETRY_SCHEDULE: '10s' } })
  let status = 500
  const receiver = await startReceiver(t, () => ({ status }))
  const { key } = await roomyAccount(h)
  const { ps } = clientOf(h.baseUrl, key)
  const worker = h.services.webhooks!.worker(silent)
  const endpoint = await ps.webhooks.endpoints.create({ url: receiver.url, eventTypes: ['webhook.test'] })
  const event = await ps.webhooks.endpoints.sendTest(endpoint.id)
  await worker.runOnce()
  h.clock.advance(10_000)
  await worker.runOnce()
  assert.equal(receiver.received.length, 2, 'two attempts, then failed')

  const attempts = async () => {
    const all = []
    for await (const attempt of ps.webhooks.endpoints.attempts(endpoint.id, { limit: 1 })) all.push(attempt)
    return all
  }
  const failed = await attempts()
  assert.deepEqual(
    failed.map((a) => [a.eventId, a.eventType, a.statusCode, a.errorClass]),
    [
      [event.id, 'webhook.test', 500, 'http_status'],
      [event.id, 'webhook.test', 500, 'http_status'],
    ],
  )
  assert.ok(BigInt(failed[0]!.id) > BigInt(failed[1]!.id), 'newest first')
  const page = await ps.webhooks.endpoints.attemptsPage(endpoint.id, { limit: 1 })
  assert.deepEqual([page.data, typeof page.nextCursor], [[failed[0]], 'string'])

  status = 204
  assert.deepEqual(await ps.webhooks.endpoints.recover(endpoint.id, new Date(0)), { count: 1 })
  await worker.runOnce()
  assert.deepEqual(await ps.webhooks.endpoints.resend(endpoint.id, event.id), { count: 1 })
  await worker.runOnce()
  assert.deepEqual(
    receiver.received.map((r) => r.headers['webhook-id']),
    [event.id, event.id, event.id, event.id],
  )
  // Signed at the service's (manual) clock: verified against it.
  const last = receiver.received.at(-1)!
  const now = new Date(h.clock.now())
  assert.deepEqual(await ps.webhooks.verify(last.body, last.headers, endpoint.secret, { now }), event)
  assert.deepEqual(
    (await attempts()).map((a) => a.statusCode),
    [204, 204, 500, 500],
  )
  assert.deepEqual(await ps.webhooks.endpoints.recover(endpoint.id, '2000-01-01T00:00:00Z'), { count: 0 })
  await assert.rejects(ps.webhooks.endpoints.resend('ep_missing', event.id), NotFoundError)
  await assert.rejects(ps.webhooks.endpoints.resend(endpoint.id, 'evt_missing'), { code: 'event_not_found' })
})
