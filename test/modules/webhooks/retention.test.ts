// Events are kept WEBHOOK_RETENTION_DAYS and then purged with their deliveries and their attempts' log; with
// WEBHOOKS=off too, where the database goes on recording the events of an endpoint left enabled. On the pass's
// backend.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness, type Harness } from '../../helpers/harness.js'
import { roomyAccount } from '../../helpers/pets.js'
import { addEndpoint } from '../../helpers/webhooks.js'

const DAY = 86_400_000
const json = (key: string) => ({ ...bearer(key), 'content-type': 'application/json' })

const count = async (h: Harness, table: 'webhook_events' | 'webhook_deliveries' | 'webhook_attempts') =>
  Number(
    (
      await h.handle.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  )

async function newPet(h: Harness, key: string, name: string): Promise<void> {
  const made = await h.app.inject({
    method: 'POST',
    url: '/v1/pets',
    headers: json(key),
    payload: { name, categoryId: 1 },
  })
  assert.equal(made.statusCode, 201, made.body)
}

test('an event older than the retention goes with its deliveries and attempts; a younger one stays', async (t) => {
  const h = await startHarness(t, { env: { WEBHOOK_RETENTION_DAYS: '30' } })
  const { key } = await roomyAccount(h)
  await addEndpoint(h, key)
  await newPet(h, key, 'old')
  // The worker tries the old event once (the endpoint refuses the connection): a delivery and an attempt.
  const worker = h.services.webhooks!.worker(h.app.log)
  await worker.runOnce()
  assert.deepEqual([await count(h, 'webhook_deliveries'), await count(h, 'webhook_attempts')], [1, 1])
  h.clock.advance(31 * DAY)
  await newPet(h, key, 'young')
  assert.equal(await h.services.events.purge(h.config.eventRetentionDays), 1)
  const left = (await h.app.inject({ url: '/v1/events', headers: bearer(key) })).json<{ data: { name: string } }[]>()
  assert.deepEqual(
    left.map((e) => e.data.name),
    ['young'],
  )
  // The old event's delivery and attempt are gone; the young event waits in the endpoint's stream, untried.
  assert.deepEqual([await count(h, 'webhook_deliveries'), await count(h, 'webhook_attempts')], [0, 0])
})

test('WEBHOOKS=off: events recorded for an endpoint left enabled are purged all the same', async (t) => {
  const h = await startHarness(t, { env: { WEBHOOKS: 'off' } })
  assert.equal(h.services.webhooks, undefined)
  const { key, accountId } = await roomyAccount(h)
  // An endpoint saved while webhooks were on, left enabled.
  await h.handle.db
    .insertInto('webhook_endpoints')
    .values({
      id: 'ep_left_on',
      account_id: accountId,
      url: 'https://hooks.example.com/',
      description: '',
      event_types: '*',
      enabled: 1,
      secret: 'sealed',
      created_at: new Date(h.clock.now()).toISOString(),
      updated_at: new Date(h.clock.now()).toISOString(),
    })
    .execute()
  await newPet(h, key, 'recorded')
  assert.equal(await count(h, 'webhook_events'), 1)
  h.clock.advance(31 * DAY)
  assert.equal(await h.services.events.purge(h.config.eventRetentionDays), 1)
  assert.equal(await count(h, 'webhook_events'), 0)
})
