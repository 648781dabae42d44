// The database engine (src/db/engine.ts), on the run's backend: transactions resolve only once committed, a
// failing transaction takes nobody else down, precompiled queries read the same rows as Kysely, and a direct
// read never sees another transaction's uncommitted rows. On SQLite, transactions of one event-loop turn share
// one COMMIT (group commit); the SQLite-only tests check what that must not change.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { sql, type Kysely } from 'kysely'
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import { prepared } from '../../src/db/prepared.js'
import type { Database } from '../../src/db/schema.js'
import { backend, sqliteOnly, testBackend } from '../helpers/backend.js'
import { within } from '../helpers/within.js'

type After = { after: (fn: () => Promise<void>) => void }

/**
 * The run's backend, with everything it opened closed after the test. The closing hook is registered before
 * testBackend's own (after hooks run in the order they were added, and one that fails skips the rest): the
 * connections are closed first, before the schema is dropped. Registered after it, a drop that failed (a deadlock
 * with transactions a failed test left in flight) skipped it, and the open pool and Redis client kept the process
 * running after the file's tests had ended. Closing is bounded, so a pool that cannot end fails the hook.
 */
async function backendOf(t: After): Promise<{ url: string; handle: DatabaseHandle }> {
  let opened: Awaited<ReturnType<typeof testBackend>> | undefined
  t.after(async () => {
    await opened?.rateLimitStore?.close()
    if (opened) await within(opened.handle.close(), 'closing the database handle', 30_000)
  })
  opened = await testBackend(t)
  return { url: opened.url, handle: opened.handle }
}

async function setup(t: After): Promise<{ handle: DatabaseHandle; accountId: string }> {
  const { handle } = await backendOf(t)
  const accountId = 'acct_engine'
  await handle.db
    .insertInto('accounts')
    .values({
      id: accountId,
      name: 'engine',
      plan: 'free',
      per_minute: null,
      per_day: null,
      created_at: '2027-01-01T00:00:00Z',
    })
    .execute()
  return { handle, accountId }
}

const insertPet = (executor: Kysely<Database>, accountId: string, name: string) =>
  executor
    .insertInto('pets')
    .values({ account_id: accountId, name, category_id: 1n, status: null, created_at: '2027-01-01T00:00:00Z' })
    .returning('id')
    .executeTakeFirstOrThrow()

const names = async (db: Kysely<Database>) =>
  (await db.selectFrom('pets').select('name').orderBy('id').execute()).map((r) => r.name)

test('concurrent transactions all commit, each with its own id', async (t) => {
  const { handle, accountId } = await setup(t)
  // Every transaction settles before the test goes on, failed or not: none is left in flight for the after hooks
  // (each is bounded by the pool's wait and the statement timeouts; `within` reports a hang as a failure).
  const outcomes = await within(
    Promise.allSettled(
      Array.from({ length: 200 }, (_, i) =>
        handle.engine.transaction(async (trx) => (await insertPet(trx, accountId, `pet ${i}`)).id),
      ),
    ),
    '200 concurrent transactions',
    60_000,
  )
  const failed = outcomes.flatMap((o) => (o.status === 'rejected' ? [String(o.reason)] : []))
  assert.deepEqual(failed.slice(0, 5), [], `${failed.length} of 200 transactions failed`)
  const ids = outcomes.map((o) => (o as PromiseFulfilledResult<bigint>).value)
  assert.equal(new Set(ids.map(String)).size, 200)
  assert.equal((await names(handle.db)).length, 200)
})

test('a transaction that fails is rolled back alone; the others of its turn commit', async (t) => {
  const { handle, accountId } = await setup(t)
  const outcomes = await Promise.allSettled(
    ['a', 'b', 'c', 'd'].map((name) =>
      handle.engine.transaction(async (trx) => {
        await insertPet(trx, accountId, name)
        await insertPet(trx, accountId, `${name}2`)
        if (name === 'b') throw new Error('b fails after writing')
        return name
      }),
    ),
  )
  assert.deepEqual(
    outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message)),
    ['a', 'b fails after writing', 'c', 'd'],
  )
  // Concurrent transactions may interleave on PostgreSQL: the set of rows is what counts.
  assert.deepEqual((await names(handle.db)).sort(), ['a', 'a2', 'c', 'c2', 'd', 'd2'])
})

test('a failing statement (constraint violation) inside a transaction fails only that transaction', async (t) => {
  const { handle, accountId } = await setup(t)
  const outcomes = await Promise.allSettled([
    handle.engine.transaction((trx) => insertPet(trx, accountId, 'ok 1')),
    handle.engine.transaction((trx) => insertPet(trx, 'acct_missing', 'dangling')),
    handle.engine.transaction((trx) => insertPet(trx, accountId, 'ok 2')),
  ])
  assert.deepEqual(
    outcomes.map((o) => o.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  )
  assert.deepEqual((await names(handle.db)).sort(), ['ok 1', 'ok 2'])
})

test('single writes: one that violates a constraint fails alone, the others of its turn commit', async (t) => {
  const { handle, accountId } = await setup(t)
  const outcomes = await Promise.allSettled([
    handle.engine.write((db) => insertPet(db, accountId, 'w1')),
    handle.engine.write((db) => insertPet(db, 'acct_missing', 'dangling')),
    handle.engine.write((db) => insertPet(db, accountId, 'w2')),
    handle.engine.transaction((trx) => insertPet(trx, accountId, 't1')),
  ])
  assert.deepEqual(
    outcomes.map((o) => o.status),
    ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
  )
  assert.deepEqual((await names(handle.db)).sort(), ['t1', 'w1', 'w2'])
})

test('precompiled queries read what Kysely reads, directly and inside a transaction', async (t) => {
  const { handle, accountId } = await setup(t)
  for (let i = 0; i < 30; i++) await insertPet(handle.db, accountId, `pet ${i}`)
  const page = prepared({ db: handle.db, engine: handle.engine }, (qb, shape: { limit: number }, p) =>
    qb
      .selectFrom('pets')
      .select(['id', 'name', 'category_id', 'status'])
      .where('account_id', '=', p<string>('accountId'))
      .where('id', '>', p<bigint>('after'))
      .orderBy('id')
      .limit(sql.lit(shape.limit)),
  )
  const expected = await handle.db
    .selectFrom('pets')
    .select(['id', 'name', 'category_id', 'status'])
    .where('account_id', '=', accountId)
    .where('id', '>', 5n)
    .orderBy('id')
    .limit(7)
    .execute()
  assert.equal(expected.length, 7)
  assert.deepEqual(await page.rows({ limit: 7 }, { accountId, after: 5n }), expected)
  // Inside a transaction the query runs on that transaction's connection and sees its own writes.
  const inside = await handle.engine.transaction(async (trx) => {
    await insertPet(trx, accountId, 'written in the transaction')
    return page.rows({ limit: 100 }, { accountId, after: 0n }, trx)
  })
  assert.equal(inside.at(-1)?.name, 'written in the transaction')
})

test('a direct read never sees the rows of a transaction that is rolled back', async (t) => {
  const { handle, accountId } = await setup(t)
  const list = prepared({ db: handle.db, engine: handle.engine }, (qb, _: null, p) =>
    qb.selectFrom('pets').select('name').where('account_id', '=', p<string>('accountId')),
  )
  let reads: Promise<{ name: string }[]> | undefined
  const rolledBack = handle.db.transaction().execute(async (trx) => {
    await insertPet(trx, accountId, 'never committed')
    // While this transaction is open (between two of its statements), a read on the database runs.
    reads = list.rows(null, { accountId })
    // On PostgreSQL the read runs on another connection: its answer, read while this transaction is open, is the
    // event. On SQLite the only connection is this transaction's: the read was decided (to go through Kysely, and so
    // to wait for the connection) as it was called, and waiting for its answer here would wait forever.
    if (backend === 'postgres') await reads
    throw new Error('roll back')
  })
  await assert.rejects(rolledBack, /roll back/)
  assert.deepEqual(await reads, [])
})

test('once a transaction has resolved, another connection sees its rows (committed, not just written)', async (t) => {
  let url: string
  if (backend === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'petstore-engine-'))
    t.after(async () => rmSync(dir, { recursive: true, force: true }))
    url = join(dir, 'engine.db')
  } else {
    url = (await backendOf(t)).url
  }
  const writer = openDatabase(url)
  await migrateToLatest(writer.db)
  const reader = openDatabase(url)
  t.after(async () => {
    await writer.close()
    await reader.close()
  })
  await writer.db
    .insertInto('accounts')
    .values({
      id: 'acct_w',
      name: 'w',
      plan: 'free',
      per_minute: null,
      per_day: null,
      created_at: '2027-01-01T00:00:00Z',
    })
    .execute()
  await Promise.all(
    Array.from({ length: 20 }, (_, i) => writer.engine.transaction((trx) => insertPet(trx, 'acct_w', `p${i}`))),
  )
  assert.equal((await names(reader.db)).length, 20)
})

test('SQLite: when the COMMIT of a group fails, every member fails and nothing of the group is kept', async (t) => {
  if (sqliteOnly(t, 'uses a deferred foreign key, checked by SQLite at COMMIT')) return
  const { handle, accountId } = await setup(t)
  const outcomes = await Promise.allSettled([
    handle.engine.transaction((trx) => insertPet(trx, accountId, 'innocent')),
    handle.engine.transaction(async (trx) => {
      // Deferred: the dangling reference is accepted now and refused at COMMIT, which the whole group shares.
      await sql`PRAGMA defer_foreign_keys = ON`.execute(trx)
      return insertPet(trx, 'acct_missing', 'dangling')
    }),
  ])
  assert.deepEqual(
    outcomes.map((o) => o.status),
    ['rejected', 'rejected'],
  )
  assert.deepEqual(await names(handle.db), [])
  // The connection is usable afterwards.
  await handle.engine.transaction((trx) => insertPet(trx, accountId, 'after'))
  assert.deepEqual(await names(handle.db), ['after'])
})

test(
  'SQLite: after each commit group, ' + "onWritesSettled listeners run once its members' promises are settled",
  async (t) => {
    if (sqliteOnly(t, "commit groups are SQLite's")) return
    const { handle, accountId } = await setup(t)
    const events: string[] = []
    handle.engine.onWritesSettled!(() => events.push('settled'))
    const members = [1, 2, 3].map((n) =>
      handle.engine.write((db) => insertPet(db, accountId, `p${n}`)).then(() => void events.push(`member ${n}`)),
    )
    const failing = handle.engine
      .transaction(() => Promise.reject(new Error('refused')))
      .catch(() => void events.push('failed member'))
    await Promise.all([...members, failing])
    // The four members of one turn make one group, and one call.
    assert.equal(events.filter((e) => e === 'settled').length, 1, events.join(', '))
    await handle.engine.write((db) => insertPet(db, accountId, 'later'))
    assert.equal(events.filter((e) => e === 'settled').length, 2, 'a later group calls it again')
  },
)
