// The delivery worker against real receivers on local ports, on the pass's backend, its schedule driven by the
// test clock: retries with the same webhook-id until the receiver recovers; a 410 disables the endpoint; a 3xx is a
// failure and is not followed; an address refused at the attempt is never connected to; the last attempt fails the
// delivery; an endpoint failing for WEBHOOK_DISABLE_AFTER is disabled; a claimed delivery whose worker died is
// delivered by another; two workers deliver each event once; an answer with a NUL character is recorded.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import pino from 'pino'
import { createEventStreamsRepository } from '../../../src/modules/webhooks/event-streams.repository.js'
import { bearer, startHarness, type Harness } from '../../helpers/harness.js'
import { roomyAccount } from '../../helpers/pets.js'
import { startReceiver } from '../../helpers/webhook-receiver.js'
import { addEndpoint } from '../../helpers/webhooks.js'

const silent = pino({ level: 'silent' })
const S = 1000
const H = 3_600_000
const json = (key: string) => ({ ...bearer(key), 'content-type': 'application/json' })
const env = { WEBHOOK_RETRY_SCHEDULE: '10s,1m', WEBHOOK_DISABLE_AFTER: '1h' }

async function setUp(t: Parameters<typeof startHarness>[0], answer: Parameters<typeof startReceiver>[1]) {
  const h = await startHarness(t, { env })
  const receiver = await startReceiver(t, answer)
  const account = await roomyAccount(h)
  const endpoint = await addEndpoint(h, account.key, receiver.url)
  const addPet = (name = 'Rex') =>
    h.app.inject({ method: 'POST', url: '/v1/pets', headers: json(account.key), payload: { name, categoryId: 1 } })
  return { h, receiver, account, endpoint, addPet, worker: h.services.webhooks!.worker(silent) }
}

// Integers come back as bigint from SQLite and as numbers from PostgreSQL.
const attempts = async (h: Harness) =>
  (
    await h.handle.db.selectFrom('webhook_attempts').select(['status_code', 'error_class']).orderBy('seq').execute()
  ).map((a) => ({ status_code: a.status_code === null ? null : Number(a.status_code), error_class: a.error_class }))
const endpointRow = (h: Harness, id: string) =>
  h.handle.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
const deliveryStatus = async (h: Harness) =>
  (await h.handle.db.selectFrom('webhook_deliveries').select('status').execute()).map((d) => d.status)

test('a failing receiver gets the event again, same webhook-id, until it answers 2xx', async (t) => {
  const { h, receiver, addPet, worker } = await setUp(t, (_r, n) => ({ status: n < 3 ? 500 : 200, body: 'no' }))
  await addPet()
  await worker.runOnce()
  assert.equal(receiver.received.length, 1)
  await worker.runOnce()
  assert.equal(receiver.received.length, 1, 'not before its time')
  h.clock.advance(10 * S)
  await worker.runOnce()
  h.clock.advance(60 * S)
  await worker.runOnce()
  assert.equal(receiver.received.length, 3)
  assert.equal(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size, 1)
  assert.deepEqual(await deliveryStatus(h), ['delivered'])
  assert.deepEqual(
    (await attempts(h)).map((a) => [a.status_code, a.error_class]),
    [
      [500, 'http_status'],
      [500, 'http_status'],
      [200, null],
    ],
  )
})

test('after the last attempt the delivery fails; a run of failures for WEBHOOK_DISABLE_AFTER disables', async (t) => {
  const { h, receiver, endpoint, addPet, worker } = await setUp(t, () => ({ status: 503 }))
  await addPet()
  for (const wait of [0, 10 * S, 60 * S]) {
    h.clock.advance(wait)
    await worker.runOnce()
  }
  assert.equal(receiver.received.length, 3, 'one attempt and one per step of the schedule')
  assert.deepEqual(await deliveryStatus(h), ['failed'])
  assert.equal(Number((await endpointRow(h, endpoint.id)).enabled), 1, 'not failing long enough yet')
  h.clock.advance(H)
  await addPet('Tom')
  await worker.runOnce()
  const row = await endpointRow(h, endpoint.id)
  assert.deepEqual([Number(row.enabled), row.disabled_reason], [0, 'failing'])
  const audit = await h.handle.db
    .selectFrom('audit_events')
    .select(['actor_kind', 'changes'])
    .where('action', '=', 'webhook_endpoint.disabled')
    .execute()
  assert.deepEqual(
    audit.map((a) => [a.actor_kind, JSON.parse(String(a.changes)).reason]),
    [['system', 'failing']],
  )
})

test('a 410 disables the endpoint at once; what was pending for it fails', async (t) => {
  const { h, endpoint, addPet, worker } = await setUp(t, () => ({ status: 410 }))
  await addPet('one')
  await worker.runOnce()
  const row = await endpointRow(h, endpoint.id)
  assert.deepEqual([Number(row.enabled), row.disabled_reason], [0, 'gone'])
  await addPet('two')
  await worker.runOnce()
  assert.deepEqual(await deliveryStatus(h), ['failed'], 'no event recorded for a disabled endpoint')
})

test('a 3xx is a failure and is not followed', async (t) => {
  const target = await startReceiver(t)
  const { h, receiver, addPet, worker } = await setUp(t, () => ({ status: 302, headers: { location: target.url } }))
  await addPet()
  await worker.runOnce()
  assert.equal(receiver.received.length, 1)
  assert.equal(target.received.length, 0)
  assert.deepEqual(
    (await attempts(h)).map((a) => [a.status_code, a.error_class]),
    [[302, 'redirect']],
  )
  assert.deepEqual(await deliveryStatus(h), ['pending'])
})

test('an address refused at the attempt is never connected to', async (t) => {
  const { h, receiver, endpoint, addPet, worker } = await setUp(t, () => ({ status: 200 }))
  // Saved while allowed, pointing somewhere refused now (as a DNS answer that changed would).
  await h.handle.db
    .updateTable('webhook_endpoints')
    .set({ url: 'http://10.1.2.3/hooks' })
    .where('id', '=', endpoint.id)
    .execute()
  await addPet()
  await worker.runOnce()
  assert.equal(receiver.received.length, 0)
  const [attempt] = await h.handle.db.selectFrom('webhook_attempts').selectAll().execute()
  assert.equal(attempt!.error_class, 'blocked_address')
  assert.match(attempt!.error!, /private address/)
})

test('a delivery whose worker died goes out after its lease; two workers deliver each event once', async (t) => {
  const { h, receiver, addPet, worker } = await setUp(t, () => ({ status: 200 }))
  await addPet('claimed by a worker that dies')
  // A worker reads the endpoint's stream and dies before it records anything.
  const streams = createEventStreamsRepository({ db: h.handle.db, clock: h.clock })
  const [claimed] = await streams.claim({ streams: 10, perStream: 10, leaseMs: 60 * S })
  assert.equal(claimed?.events.length, 1)
  await worker.runOnce()
  assert.equal(receiver.received.length, 0, 'leased to the dead worker')
  h.clock.advance(61 * S)
  await worker.runOnce()
  assert.equal(receiver.received.length, 1)

  for (let i = 0; i < 30; i++) await addPet(`pet ${i}`)
  const other = h.services.webhooks!.worker(silent)
  while ((await Promise.all([worker.runOnce(), other.runOnce()])).some((n) => n > 0)) {}
  const ids = receiver.received.map((r) => r.headers['webhook-id'])
  assert.equal(ids.length, 31)
  assert.equal(new Set(ids).size, 31, 'each event once')
})

test('an answer with a NUL character is logged (as U+FFFD) and the event is not sent again', async (t) => {
  const { h, receiver, addPet, worker } = await setUp(t, () => ({ status: 200, body: 'ok\u0000done' }))
  await addPet()
  await worker.runOnce()
  // Recorded, on PostgreSQL too (its text holds no NUL): the stream moved on, and a first attempt that succeeded
  // needs no delivery row.
  assert.deepEqual(await deliveryStatus(h), [])
  const [row] = await h.handle.db.selectFrom('webhook_attempts').select('response_excerpt').execute()
  assert.equal(row?.response_excerpt, 'ok\uFFFDdone')
  h.clock.advance(H)
  await worker.runOnce()
  assert.equal(receiver.received.length, 1, 'once')
})
