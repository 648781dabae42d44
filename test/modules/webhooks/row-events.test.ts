// The events of rows are recorded by the database in the statement that changes the row (migration 0015): their
// `data` is byte for byte what the API answers, a change that rolls back has none, and every type the triggers
// record is in the catalogue. On the pass's backend.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ROW_EVENT_TYPES } from '../../../src/db/migrations/0015_webhook-triggers.js'
import { isEventType } from '../../../src/modules/webhooks/event-types.js'
import { bearer, startHarness, type Harness } from '../../helpers/harness.js'
import { roomyAccount } from '../../helpers/pets.js'

const json = (key: string) => ({ ...bearer(key), 'content-type': 'application/json' })

async function subscribed(h: Harness) {
  const account = await roomyAccount(h)
  const made = await h.app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    headers: json(account.key),
    payload: { url: 'http://127.0.0.1:9/hooks', eventTypes: ['*'] },
  })
  assert.equal(made.statusCode, 201, made.body)
  return account
}

const eventsOf = async (h: Harness, key: string) =>
  (await h.app.inject({ url: '/v1/events?limit=100', headers: bearer(key) })).json<
    { type: string; data: Record<string, unknown> }[]
  >()
const rawEvents = async (h: Harness, key: string) =>
  (await h.app.inject({ url: '/v1/events?limit=100', headers: bearer(key) })).body

test('every type a trigger records is in the catalogue', () => {
  assert.ok(ROW_EVENT_TYPES.length >= 6)
  for (const type of ROW_EVENT_TYPES) assert.ok(isEventType(type), type)
})

test("orders' events carry the order as the API answers it", async (t) => {
  const h = await startHarness(t)
  const { key } = await subscribed(h)
  const pet = await h.app.inject({
    method: 'POST',
    url: '/v1/pets',
    headers: json(key),
    payload: '{"name":"Rex","categoryId":1}',
  })
  const petId = pet.json<{ id: number }>().id
  const order = await h.app.inject({
    method: 'POST',
    url: '/v1/store/orders',
    headers: json(key),
    payload: { petId, quantity: 3, shipDate: '2030-01-01T00:00:00Z', complete: true },
  })
  assert.equal(order.statusCode, 201)
  const orderId = order.json<{ id: number }>().id
  const alone = (await h.app.inject({ url: `/v1/store/orders/${orderId}`, headers: bearer(key) })).body
  await h.handle.db.updateTable('orders').set({ status: 'approved' }).where('id', '=', BigInt(orderId)).execute()
  const approved = (await h.app.inject({ url: `/v1/store/orders/${orderId}`, headers: bearer(key) })).body
  const cancel = await h.app.inject({ method: 'DELETE', url: `/v1/store/orders/${orderId}`, headers: bearer(key) })
  assert.equal(cancel.statusCode, 204)

  const raw = await rawEvents(h, key)
  const types = (await eventsOf(h, key)).map((e) => e.type)
  assert.deepEqual(types, ['order.deleted', 'order.updated', 'order.created', 'pet.created'])
  assert.ok(
    raw.includes(
      `"type":"order.created","timestamp":"${order.json<{ createdAt: string }>().createdAt}","data":${alone}}`,
    ),
    raw,
  )
  assert.ok(raw.includes(`"data":${approved.slice(0, -1)},"previous":{"status":"placed"}}}`), raw)
  assert.ok(raw.includes(`"type":"order.deleted"`) && raw.includes(`"data":${approved}}`), raw)
})

test('a change that rolls back records no event', async (t) => {
  const h = await startHarness(t)
  const { key, accountId } = await subscribed(h)
  await assert.rejects(
    h.handle.db.transaction().execute(async (trx) => {
      await h.services.pets.create({ accountId, pet: { name: 'Ghost', categoryId: 1n } }, trx)
      throw new Error('rolled back')
    }),
    /rolled back/,
  )
  assert.deepEqual(await eventsOf(h, key), [])
  await h.services.pets.create({ accountId, pet: { name: 'Real', categoryId: 1n } })
  assert.deepEqual(
    (await eventsOf(h, key)).map((e) => e.data.name),
    ['Real'],
    'the same write, committed',
  )
})

test('a message delivered or failed is an event', async (t) => {
  const h = await startHarness(t)
  const { key, accountId } = await subscribed(h)
  const messages = h.services.messages
  const sent = await messages.create({ accountId, message: 'hello "there"' })
  const failing = await messages.create({ accountId, message: 'lost' })
  const claimed = await messages.claimDue({ limit: 10, leaseMs: 60_000 })
  await messages.markDelivered(claimed.find((m) => m.id === sent.id)!.seq)
  await messages.markAttemptFailed(claimed.find((m) => m.id === failing.id)!.seq, 'down', undefined)
  const events = await eventsOf(h, key)
  assert.deepEqual(
    events.map((e) => [e.type, e.data]),
    [
      ['message.failed', { id: failing.id, message: 'lost', status: 'failed', createdAt: failing.createdAt }],
      ['message.delivered', { id: sent.id, message: 'hello "there"', status: 'delivered', createdAt: sent.createdAt }],
    ],
  )
})

test("a message's events stay under 20 KB: a text JSON writes as over 16 KiB is cut to 3,000 characters", async (t) => {
  const h = await startHarness(t)
  const { key, accountId } = await subscribed(h)
  const messages = h.services.messages
  // 4,096 characters JSON writes as six bytes each (\u0001): 24 KB of text. And 4,096 two-byte ones: kept whole.
  const escaped = '\u0001'.repeat(4096)
  const wide = 'é'.repeat(4096)
  const big = await messages.create({ accountId, message: escaped })
  const whole = await messages.create({ accountId, message: wide })
  for (const m of await messages.claimDue({ limit: 10, leaseMs: 60_000 })) await messages.markDelivered(m.seq)
  const listed = await eventsOf(h, key)
  const event = (id: string) => listed.find((e) => e.data.id === id)!
  assert.deepEqual(event(big.id).data, {
    id: big.id,
    message: escaped.slice(0, 3000),
    status: 'delivered',
    createdAt: big.createdAt,
    truncated: true,
  })
  assert.deepEqual(event(whole.id).data, {
    id: whole.id,
    message: wide,
    status: 'delivered',
    createdAt: whole.createdAt,
  })
  const one = await h.app.inject({ url: `/v1/events/${(event(big.id) as { id?: string }).id}`, headers: bearer(key) })
  assert.equal(one.statusCode, 200)
  assert.ok(Buffer.byteLength(one.body) < 20_480, `${Buffer.byteLength(one.body)} bytes`)
  assert.ok(Buffer.byteLength(one.body) > 18_000, 'the cut text is still most of the payload')
})
