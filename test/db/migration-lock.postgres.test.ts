// Migrating while another process holds the schema's migration lock: the migration waits for it however long that
// takes past the statement timeout (Kysely's lock was one statement, cancelled at DATABASE_TIMEOUT_MS), and a lock
// on another schema of the same database does not hold it up. Runs in the PostgreSQL + Redis pass.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { KyselyPlugin } from 'kysely'
import pg from 'pg'
import { openDatabase } from '../../src/db/database.js'
import { migrateToLatest, migrations } from '../../src/db/migrate.js'
import { MIGRATION_LOCK_SQL } from '../../src/db/migration-lock.js'
import { postgresOnly, postgresSchema } from '../helpers/backend.js'
import { pollUntil } from '../helpers/within.js'

type T = Parameters<typeof postgresSchema>[0]

/** A client on `url` (its schema) holding the migration lock, as another process migrating would. */
async function holdLock(url: string): Promise<{ release: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query(MIGRATION_LOCK_SQL.lock)
  return { release: async () => void (await client.query(MIGRATION_LOCK_SQL.unlock), await client.end()) }
}

/** A database handle whose statements are cancelled after 2 s (a migration's own statements stay well under it). */
function shortTimeout(t: T, url: string) {
  const handle = openDatabase(url, { poolSize: 2, timeoutMs: 2_000 })
  t.after(() => handle.close())
  return handle
}

/**
 * When each of the migration's tries for the lock (`pg_try_advisory_lock … as locked`) was answered, and its
 * answer.
 */
function lockTries(): { plugin: KyselyPlugin; answered: { at: number; locked: unknown }[] } {
  const answered: { at: number; locked: unknown }[] = []
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    async transformResult(args) {
      const row = args.result.rows[0] as Record<string, unknown> | undefined
      if (row !== undefined && 'locked' in row) answered.push({ at: performance.now(), locked: row.locked })
      return args.result
    },
  }
  return { plugin, answered }
}

test(
  'a migration waits for the lock held by another process past the statement timeout, ' +
    'then finds nothing to do or does it all',
  async (t) => {
    if (postgresOnly(t)) return
    const url = await postgresSchema(t)
    const held = await holdLock(url)
    const tries = lockTries()
    const started = performance.now()
    const waiting = migrateToLatest(shortTimeout(t, url).db.withPlugin(tries.plugin))
    let settled = false
    waiting.then(
      () => (settled = true),
      () => (settled = true),
    ) // awaited below; a failure is reported there, not as an unhandled rejection meanwhile
    // The event: a try for the lock answered after the 2 s statement timeout has passed (by a margin), the migration
    // still waiting. One statement waiting for the lock would have been cancelled at 2 s and failed the migration.
    await pollUntil(
      'a try for the lock answered past the 2 s statement timeout',
      async () => {
        if (settled) await waiting.then(() => assert.fail('the migration ran while another process held the lock'))
        return tries.answered.some((a) => a.at - started > 2_500) ? true : undefined
      },
      20_000,
      20,
    )
    await held.release()
    const applied = await waiting
    const waitedMs = performance.now() - started
    t.diagnostic(
      `migrated after waiting ${waitedMs.toFixed(0)} ms (${tries.answered.length} tries) with a 2 s statement timeout`,
    )
    assert.ok(
      tries.answered.slice(0, -1).every((a) => a.locked === false),
      `a try took the lock while it was held: ${JSON.stringify(tries.answered)}`,
    )
    assert.equal(tries.answered.at(-1)?.locked, true, 'the last try took the lock')
    assert.deepEqual(applied, Object.keys(migrations))
  },
)

test(
  'two processes starting at once with a short statement timeout: ' + 'one migrates, the other waits and finds it done',
  async (t) => {
    if (postgresOnly(t)) return
    const url = await postgresSchema(t)
    const [a, b] = await Promise.all([
      migrateToLatest(shortTimeout(t, url).db),
      migrateToLatest(shortTimeout(t, url).db),
    ])
    assert.deepEqual([...a!, ...b!].sort(), Object.keys(migrations).sort(), 'every migration applied exactly once')
  },
)

test("the lock is the schema's: another schema's migration does not wait for it", async (t) => {
  if (postgresOnly(t)) return
  const held = await holdLock(await postgresSchema(t))
  t.after(() => held.release())
  const other = await postgresSchema(t)
  assert.deepEqual(await migrateToLatest(shortTimeout(t, other).db), Object.keys(migrations))
})
