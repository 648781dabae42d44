// Three real server processes on one PostgreSQL schema and one Redis prefix behave as one service: the quota is
// exact across them, an Idempotency-Key creates one pet whichever instances get it, ids are unique, and a pet
// written through one instance is read through another at once.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import pg from 'pg'
import { postgresOnly, postgresSchema } from '../helpers/backend.js'
import {
  accountKey,
  answer,
  assertErrorBody,
  redisPrefix,
  ROOMY,
  startInstance,
  statusCounts,
  withinOneMinute,
  type Answer,
  type Instance,
} from './support.js'

type T = Parameters<typeof postgresSchema>[0]

/** Three instances started at the same moment on a fresh, empty schema (so they also race to migrate it). */
async function threeInstances(t: T): Promise<{ instances: Instance[]; databaseUrl: string }> {
  const databaseUrl = await postgresSchema(t)
  const redis = redisPrefix(t)
  // These runs prove the exact quota with Redis healthy. A burst of hundreds of requests on this shared 2-core
  // machine can hold a reply past the 50 ms default, which (rightly) falls back and would prove nothing here.
  const env = { DATABASE_URL: databaseUrl, REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix, REDIS_TIMEOUT_MS: '1000' }
  const instances = await Promise.all([0, 1, 2].map(() => startInstance(t, env)))
  // They honoured the URL's `options=-c search_path=…` (what they created is in the test's schema), and the racing
  // first starts agreed: one of them created the local account and its key, once.
  const schema = /search_path=(\w+)/.exec(new URL(databaseUrl).searchParams.get('options') ?? '')?.[1]
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
  await admin.connect()
  try {
    const counts = await admin.query(
      `SELECT (SELECT count(*) FROM ${schema}.accounts)::int AS accounts, ` +
        `(SELECT count(*) FROM ${schema}.api_keys)::int AS keys`,
    )
    assert.deepEqual(counts.rows[0], { accounts: 1, keys: 1 })
  } finally {
    await admin.end()
  }
  return { instances, databaseUrl }
}

const api = (i: Instance, path: string, key: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
  fetch(`${i.origin}/v1${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${key}`,
      ...(init.body ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
    signal: AbortSignal.timeout(20_000),
  }).then(answer)

const degraded = (instances: Instance[]) =>
  instances
    .map((i) => i.process.stdout() + i.process.stderr())
    .filter((log) => log.includes('rate-limit store unreachable'))

test(
  '300 simultaneous requests with one free key, ' + 'round robin over three instances: exactly 60 are admitted',
  async (t) => {
    if (postgresOnly(t)) return
    const { instances, databaseUrl } = await threeInstances(t)
    let burst: { result: Answer[]; oneMinute: boolean } | undefined
    for (let attempt = 0; attempt < 2 && !burst?.oneMinute; attempt++) {
      const { key } = await accountKey(databaseUrl)
      burst = await withinOneMinute(() =>
        Promise.all(Array.from({ length: 300 }, (_, n) => api(instances[n % 3]!, '/pets', key))),
      )
    }
    assert.ok(burst?.oneMinute, 'two bursts in a row straddled a minute boundary')
    assert.deepEqual(
      degraded(instances),
      [],
      'an instance fell back to per-instance limits, so this run proves nothing',
    )

    const answers = burst.result
    assert.deepEqual(statusCounts(answers), { 200: 60, 429: 240 })
    for (const a of answers.filter((x) => x.status === 429))
      assertErrorBody(a, ['rate_limit_exceeded', 'temporarily_banned'])
  },
)

test('the same Idempotency-Key sent to two instances at once creates one pet', async (t) => {
  if (postgresOnly(t)) return
  const { instances, databaseUrl } = await threeInstances(t)
  const { key } = await accountKey(databaseUrl, ROOMY)
  const rounds = 12
  const results = await Promise.all(
    Array.from({ length: rounds }, async (_, n) => {
      const [a, b, c] = [instances[n % 3]!, instances[(n + 1) % 3]!, instances[(n + 2) % 3]!]
      const init = {
        method: 'POST',
        body: JSON.stringify({ name: `Twin ${n}`, categoryId: n + 1 }),
        headers: { 'idempotency-key': `"twin-${n}"` },
      }
      const pair = await Promise.all([api(a, '/pets', key, init), api(b, '/pets', key, init)])
      // A retry through the third instance, once both have answered, replays the one pet.
      const retry = await api(c, '/pets', key, init)
      return { n, pair, retry }
    }),
  )

  const listed = await api(instances[0]!, '/pets?limit=100', key)
  assert.equal(listed.status, 200)
  for (const { n, pair, retry } of results) {
    const created = pair.filter((a) => a.status === 201)
    const fresh = created.filter((a) => a.replayed === null)
    assert.equal(fresh.length, 1, `round ${n}: ${JSON.stringify(pair)}`)
    for (const a of pair) {
      if (a.status === 201) assert.deepEqual(a.body, fresh[0]!.body, `round ${n}`)
      if (a.status === 201 && a !== fresh[0]) assert.equal(a.replayed, 'true')
      if (a.status !== 201) assertErrorBody(a, ['idempotency_key_in_progress'])
    }
    assert.equal(retry.status, 201)
    assert.equal(retry.replayed, 'true')
    assert.deepEqual(retry.body, fresh[0]!.body)
    const pets = (listed.body as { id: number; name: string }[]).filter((p) => p.name === `Twin ${n}`)
    assert.deepEqual(pets, [fresh[0]!.body], `round ${n}: pets named "Twin ${n}"`)
  }
  assert.equal(listed.body.length, rounds)
})

test('pets created at the same time through three instances get unique ids, all listed', async (t) => {
  if (postgresOnly(t)) return
  const { instances, databaseUrl } = await threeInstances(t)
  const { key } = await accountKey(databaseUrl, ROOMY)
  const created = await Promise.all(
    Array.from({ length: 90 }, (_, n) =>
      api(instances[n % 3]!, '/pets', key, {
        method: 'POST',
        body: JSON.stringify({ name: `Pet ${n}`, categoryId: 1 }),
      }),
    ),
  )
  assert.deepEqual(
    created.map((a) => a.status),
    created.map(() => 201),
  )
  const ids = created.map((a) => a.body.id as number)
  assert.equal(new Set(ids).size, 90, 'duplicate ids')
  assert.ok(ids.every((id) => Number.isSafeInteger(id) && id > 0))

  const listed = await api(instances[2]!, '/pets?limit=100', key)
  assert.deepEqual(
    (listed.body as { id: number }[]).map((p) => p.id),
    [...ids].sort((x, y) => x - y),
  )
})

test('a pet created through one instance is read through each other one at once', async (t) => {
  if (postgresOnly(t)) return
  const { instances, databaseUrl } = await threeInstances(t)
  const { key } = await accountKey(databaseUrl, ROOMY)
  for (let from = 0; from < 3; from++) {
    const created = await api(instances[from]!, '/pets', key, {
      method: 'POST',
      body: JSON.stringify({ name: `From ${from}`, categoryId: 9, status: 'available' }),
    })
    assert.equal(created.status, 201)
    for (const to of [1, 2].map((d) => (from + d) % 3)) {
      const got = await api(instances[to]!, `/pets/${created.body.id}`, key)
      assert.equal(got.status, 200, `created on ${from}, read on ${to}: ${JSON.stringify(got.body)}`)
      assert.deepEqual(got.body, created.body)
      const listed = await api(instances[to]!, '/pets?status=available&limit=100', key)
      assert.ok(
        (listed.body as { id: number }[]).some((p) => p.id === created.body.id),
        `created on ${from}, not listed on ${to}`,
      )
    }
  }
})
