// Usage per account and key: requests with a valid key counted as successes or refused (429) through HTTP (inject;
// the other outcomes in outcomes.test.ts), zero-filled series, kept across a restart, added up over two apps on one
// database, old rows purged.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { appWithServices } from '../../helpers/app-with-services.js'
import { openDatabase } from '../../../src/db/database.js'
import { backend, refuseInserts } from '../../helpers/backend.js'
import { bearer, startHarness, type Harness } from '../../helpers/harness.js'
import { testActor } from '../../helpers/actors.js'

const T0 = Date.parse('2027-01-10T12:00:30Z')
const MINUTE = 60_000
const DAY = 86_400_000

async function calls(app: FastifyInstance, key: string, n: number, expected?: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await app.inject({ url: '/v1/pets', headers: bearer(key) })
    if (expected !== undefined) assert.equal(res.statusCode, expected, res.body)
  }
}

/** Another app on the harness's database (on PostgreSQL through its own pool, like another instance). */
async function anotherApp(t: { after: (fn: () => Promise<void>) => void }, h: Harness) {
  const handle = backend === 'postgres' ? openDatabase(h.config.databaseUrl, { poolSize: 2 }) : h.handle
  const { app, services } = await appWithServices({
    config: h.config,
    db: handle.db,
    engine: handle.engine,
    clock: h.clock,
    logger: false,
  })
  t.after(async () => {
    await app.close()
    await services.close()
    if (handle !== h.handle) await handle.close()
  })
  return { app, services }
}

const last = <T>(list: T[]) => list[list.length - 1]!

test(
  'requests are counted per key and per account, ' + 'successes and refused (429) apart, in zero-filled series',
  async (t) => {
    const h = await startHarness(t, { now: T0 })
    const a = await h.newAccount({ plan: 'enterprise', perMinute: 3, perDay: 100 })
    const second = await h.services.accounts.createApiKey({
      actor: testActor,
      accountId: a.accountId,
      environment: 'test',
      name: 'second',
    })
    const other = await h.newAccount()

    await calls(h.app, a.key, 3, 200)
    await calls(h.app, second.key, 2, 429)
    await calls(h.app, other.key, 1, 200)
    await calls(h.app, `${a.key}x`, 2, 401) // no valid key: not counted
    h.clock.advance(MINUTE)
    await calls(h.app, second.key, 1, 200)

    const now = h.clock.now()
    const account = await h.services.usage.perMinute({ accountId: a.accountId, now })
    assert.equal(account.length, 60)
    assert.equal(account[0]!.at, '2027-01-10T11:02:00.000Z', 'the oldest of the last 60 minutes')
    assert.deepEqual(account.slice(-2), [
      { at: '2027-01-10T12:00:00.000Z', success: 3, clientErrors: 0, refused: 2, serverErrors: 0 },
      { at: '2027-01-10T12:01:00.000Z', success: 1, clientErrors: 0, refused: 0, serverErrors: 0 },
    ])
    assert.ok(
      account.slice(0, -2).every((p) => p.success + p.clientErrors + p.refused + p.serverErrors === 0),
      'zero-filled',
    )
    assert.deepEqual(
      (await h.services.usage.perMinute({ accountId: a.accountId, keyId: second.id, now }))
        .slice(-2)
        .map((p) => [p.success, p.refused]),
      [
        [0, 2],
        [1, 0],
      ],
    )
    assert.deepEqual((await h.services.usage.perMinute({ accountId: a.accountId, keyId: a.keyId, now })).slice(-2), [
      { at: '2027-01-10T12:00:00.000Z', success: 3, clientErrors: 0, refused: 0, serverErrors: 0 },
      { at: '2027-01-10T12:01:00.000Z', success: 0, clientErrors: 0, refused: 0, serverErrors: 0 },
    ])

    const days = await h.services.usage.perDay({ accountId: a.accountId, now })
    assert.equal(days.length, 30)
    assert.equal(days[0]!.at, '2026-12-12T00:00:00.000Z')
    assert.deepEqual(last(days), {
      at: '2027-01-10T00:00:00.000Z',
      success: 4,
      clientErrors: 0,
      refused: 2,
      serverErrors: 0,
    })
    assert.deepEqual(last(await h.services.usage.perDay({ accountId: other.accountId, now })), {
      at: '2027-01-10T00:00:00.000Z',
      success: 1,
      clientErrors: 0,
      refused: 0,
      serverErrors: 0,
    })
    // Another account's key id under this account: nothing.
    assert.deepEqual(last(await h.services.usage.perDay({ accountId: a.accountId, keyId: other.keyId, now })), {
      at: '2027-01-10T00:00:00.000Z',
      success: 0,
      clientErrors: 0,
      refused: 0,
      serverErrors: 0,
    })
  },
)

test('current: the plan and its limits beside the live minute and day counts', async (t) => {
  const h = await startHarness(t, { now: T0 })
  const a = await h.newAccount()
  await calls(h.app, a.key, 4, 200)
  const current = await h.services.usage.current(a.accountId, h.clock.now())
  assert.deepEqual(current, {
    plan: 'free',
    windows: [
      { name: 'minute', limit: 60, used: 4, remaining: 56, resetsAt: '2027-01-10T12:01:00.000Z' },
      { name: 'day', limit: 1000, used: 4, remaining: 996, resetsAt: '2027-01-11T00:00:00.000Z' },
    ],
  })
})

test(
  'counts survive a restart: an app closing writes its buffer, ' + 'a new app on the same database reads it',
  async (t) => {
    const h = await startHarness(t, { now: T0 })
    const a = await h.newAccount()
    const first = await anotherApp(t, h)
    await calls(first.app, a.key, 5, 200)
    // No explicit flush: closing writes what is buffered (the server closes its services after its apps).
    await first.app.close()
    await first.services.close()
    const restarted = await anotherApp(t, h)
    assert.deepEqual(last(await restarted.services.usage.perMinute({ accountId: a.accountId, now: h.clock.now() })), {
      at: '2027-01-10T12:00:00.000Z',
      success: 5,
      clientErrors: 0,
      refused: 0,
      serverErrors: 0,
    })
  },
)

test('two apps on one database add up, each flushing its own counts at the same time', async (t) => {
  const h = await startHarness(t, { now: T0 })
  const a = await h.newAccount()
  const other = await anotherApp(t, h)
  await calls(h.app, a.key, 3, 200)
  await calls(other.app, a.key, 4, 200)
  for (let round = 0; round < 3; round++) {
    await Promise.all([calls(h.app, a.key, 2), calls(other.app, a.key, 2)])
    await Promise.all([h.services.usage.flush(), other.services.usage.flush()])
  }
  const now = h.clock.now()
  for (const services of [h.services, other.services]) {
    assert.deepEqual(last(await services.usage.perMinute({ accountId: a.accountId, now })), {
      at: '2027-01-10T12:00:00.000Z',
      success: 19,
      clientErrors: 0,
      refused: 0,
      serverErrors: 0,
    })
    assert.deepEqual(last(await services.usage.perDay({ accountId: a.accountId, keyId: a.keyId, now })), {
      at: '2027-01-10T00:00:00.000Z',
      success: 19,
      clientErrors: 0,
      refused: 0,
      serverErrors: 0,
    })
  }
})

test('a failed write keeps the counts for the next one', async (t) => {
  const h = await startHarness(t, { now: T0 })
  const a = await h.newAccount()
  await calls(h.app, a.key, 2, 200)
  const undo = await refuseInserts(h.handle.db, 'usage_days')
  await assert.rejects(h.services.usage.flush())
  await calls(h.app, a.key, 1, 200)
  await undo()
  await h.services.usage.flush()
  assert.deepEqual(last(await h.services.usage.perMinute({ accountId: a.accountId, now: h.clock.now() })), {
    at: '2027-01-10T12:00:00.000Z',
    success: 3,
    clientErrors: 0,
    refused: 0,
    serverErrors: 0,
  })
})

test('purge deletes minute rows older than two days and day rows older than 90 days', async (t) => {
  const h = await startHarness(t, { now: T0 })
  const a = await h.newAccount()
  await calls(h.app, a.key, 1, 200)
  await h.services.usage.flush()
  const count = async (table: 'usage_minutes' | 'usage_days') =>
    (await h.handle.db.selectFrom(table).select('key_id').execute()).length
  const minute = Date.parse('2027-01-10T12:00:00Z')
  assert.equal(await h.services.usage.purge(minute + 2 * DAY), 0)
  assert.equal(await h.services.usage.purge(minute + 2 * DAY + 1), 1)
  assert.deepEqual([await count('usage_minutes'), await count('usage_days')], [0, 1])
  const day = Date.parse('2027-01-10T00:00:00Z')
  assert.equal(await h.services.usage.purge(day + 90 * DAY), 0)
  assert.equal(await h.services.usage.purge(day + 90 * DAY + 1), 1)
  assert.deepEqual([await count('usage_minutes'), await count('usage_days')], [0, 0])
})
