// PostgreSQL's group commit (src/db/pg-group-commit.ts): the writes of one turn (engine.write, writeTogether) share
// one transaction on one pipelined connection, and grouping changes nothing a caller can see: a member that fails
// (by its own error, a constraint, a statement timeout, or a COMMIT the server refuses) fails alone while the
// others commit; a COMMIT whose answer is lost fails every member as unavailable, and none of them is answered as
// committed.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql, type Kysely } from 'kysely'
import { openDatabase } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import type { Database } from '../../src/db/schema.js'
import { isDatabaseUnavailable } from '../../src/db/unavailable.js'
import { postgresOnly, postgresSchema } from '../helpers/backend.js'
import { tcpProxy } from '../helpers/tcp-proxy.js'
import { within } from '../helpers/within.js'

type T = Parameters<typeof postgresSchema>[0] & { skip: (reason: string) => void }

/** A migrated schema with one account, opened with `options` (through `url` when given, e.g. a relay's). */
async function opened(t: T, options: { timeoutMs?: number; via?: (url: URL) => Promise<URL> } = {}) {
  const direct = new URL(await postgresSchema(t))
  const migrator = openDatabase(direct.toString())
  await migrateToLatest(migrator.db)
  await migrator.db
    .insertInto('accounts')
    .values({ id: 'acct_g', name: 'g', plan: 'free', per_minute: null, per_day: null, created_at: '2027-01-01' })
    .execute()
  const url = options.via ? await options.via(direct) : direct
  const handle = openDatabase(url.toString(), { poolSize: 4, timeoutMs: options.timeoutMs })
  t.after(async () => {
    await within(handle.close(), 'closing the handle', 30_000)
    await migrator.close()
  })
  return { handle, check: migrator.db }
}

const insertPet = (executor: Kysely<Database>, name: string) =>
  executor
    .insertInto('pets')
    .values({ account_id: 'acct_g', name, category_id: 1n, status: null, created_at: '2027-01-01T00:00:00Z' })
    .returning('id')
    .executeTakeFirstOrThrow()

const names = async (db: Kysely<Database>) =>
  (await db.selectFrom('pets').select('name').execute()).map((r) => r.name).sort()

const settled = (outcomes: PromiseSettledResult<unknown>[]) => outcomes.map((o) => o.status)

test('the writes of one turn run in one transaction (one COMMIT), each answered with its own result', async (t) => {
  if (postgresOnly(t)) return
  const { handle } = await opened(t)
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      handle.engine.writeTogether(async (trx) => {
        const { id } = await insertPet(trx, `pet ${i}`)
        const { rows } = await sql<{ xid: string }>`select txid_current()::text as xid`.execute(trx)
        return { id, xid: rows[0]!.xid }
      }),
    ),
  )
  assert.equal(new Set(results.map((r) => r.xid)).size, 1, 'one transaction for the turn')
  assert.equal(new Set(results.map((r) => String(r.id))).size, 20, 'each its own row')
  // A transaction that reads before it writes runs alone, in a transaction of its own.
  const alone = await Promise.all(
    [1, 2].map(() =>
      handle.engine.transaction(async (trx) => {
        const { rows } = await sql<{ xid: string }>`select txid_current()::text as xid`.execute(trx)
        return rows[0]!.xid
      }),
    ),
  )
  assert.equal(new Set(alone).size, 2)
})

test('a COMMIT the server refuses: every member runs again alone, and only the one that caused it fails', async (t) => {
  if (postgresOnly(t)) return
  const { handle, check } = await opened(t)
  // Checked at COMMIT: a pet named "refused at commit" is refused then, not when it is inserted.
  await sql`create function refuse_at_commit() returns trigger language plpgsql as $$
    begin
      if new.name = 'refused at commit' then raise exception 'refused at commit' using errcode = '23514'; end if;
      return new;
    end $$`.execute(check)
  await sql`create constraint trigger refuse_at_commit after insert on pets deferrable initially deferred
    for each row execute function refuse_at_commit()`.execute(check)
  const outcomes = await Promise.allSettled(
    ['one', 'refused at commit', 'two'].map((name) => handle.engine.writeTogether((trx) => insertPet(trx, name))),
  )
  assert.deepEqual(settled(outcomes), ['fulfilled', 'rejected', 'fulfilled'])
  assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /refused at commit/)
  assert.deepEqual(await names(check), ['one', 'two'])
})

test("a statement timeout in one member: it fails alone, the others' rows commit", async (t) => {
  if (postgresOnly(t)) return
  const { handle, check } = await opened(t, { timeoutMs: 300 })
  const outcomes = await Promise.allSettled([
    handle.engine.write((db) => insertPet(db, 'quick one')),
    handle.engine.writeTogether(async (trx) => {
      await insertPet(trx, 'slow')
      await sql`select pg_sleep(2)`.execute(trx)
    }),
    handle.engine.write((db) => insertPet(db, 'quick two')),
  ])
  assert.deepEqual(settled(outcomes), ['fulfilled', 'rejected', 'fulfilled'])
  assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /statement timeout/)
  assert.deepEqual(await names(check), ['quick one', 'quick two'])
})

test('a COMMIT whose answer is lost fails every member as unavailable; none was committed', async (t) => {
  if (postgresOnly(t)) return
  let relay: Awaited<ReturnType<typeof tcpProxy>> | undefined
  const { handle, check } = await opened(t, {
    via: async (direct) => {
      relay = await tcpProxy(t, { host: direct.hostname, port: Number(direct.port || 5432) })
      await relay.start()
      return Object.assign(new URL(direct), { port: String(relay.port) })
    },
  })
  await handle.engine.write((db) => insertPet(db, 'before'))
  // The relay drops the connection instead of forwarding the group's COMMIT: the server never gets it.
  relay!.cutWhen(/COMMIT/)
  const outcomes = await Promise.allSettled(
    ['a', 'b', 'c'].map((name) => handle.engine.writeTogether((trx) => insertPet(trx, name))),
  )
  assert.deepEqual(settled(outcomes), ['rejected', 'rejected', 'rejected'])
  for (const o of outcomes) assert.ok(isDatabaseUnavailable((o as PromiseRejectedResult).reason), String(o))
  assert.equal(relay!.cuts(), 1, 'not run again: whether the COMMIT arrived is not known')
  relay!.cutWhen(undefined)
  assert.deepEqual(await names(check), ['before'])
  await handle.engine.write((db) => insertPet(db, 'after'))
  assert.deepEqual(await names(check), ['after', 'before'], 'the next group gets a new connection')
})
