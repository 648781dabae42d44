// The audit log's append-only rule, tried for real with plain SQL as any database client could (issue 32): the
// trigger measures an entry's age itself, by the database's own clock, against the AUDIT_RETENTION_DAYS the service
// wrote into it at start; no session setting (the old `petstore.audit_retention` flag, session_replication_role)
// lets a younger entry go, on PostgreSQL or on SQLite.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { sql, type Kysely } from 'kysely'
import { createAuditRepository } from '../../../src/modules/audit/audit.repository.js'
import { createManualClock } from '../../../src/kernel/clock.js'
import { loadConfig } from '../../../src/kernel/config.js'
import type { Database } from '../../../src/db/schema.js'
import { openAndMigrate } from '../../../src/main/server.js'
import { backend, postgresSchema } from '../../helpers/backend.js'
import { startHarness } from '../../helpers/harness.js'

const DAY = 24 * 60 * 60 * 1000
const cli = { kind: 'cli', user: 'alice' } as const

/** One entry per age (days before now, by the real clock), for accounts acct_0, acct_1, … */
async function entriesAged(db: Kysely<Database>, ages: number[]): Promise<void> {
  const clock = createManualClock()
  const audit = createAuditRepository({ db, clock })
  for (const [i, age] of ages.entries()) {
    clock.set(Date.now() - age * DAY)
    await audit.record(cli, { action: 'ban.lifted', accountId: `acct_${i}`, target: { kind: 'key', id: `key_${i}` } })
  }
}

const left = async (db: Kysely<Database>) =>
  (await db.selectFrom('audit_events').select('account_id').orderBy('seq').execute()).map((r) => r.account_id)
const deleteOf = (db: Kysely<Database>, accountId: string) =>
  sql`delete from audit_events where account_id = ${accountId}`.execute(db)

test(
  'PostgreSQL: the retention flag, or replica mode, ' + 'set by the client itself lets no young entry be deleted',
  async (t) => {
    if (backend !== 'postgres') return t.skip('PostgreSQL’s session settings')
    const h = await startHarness(t)
    await entriesAged(h.handle.db, [2, 0])
    // What the attacker did: any client may set a custom setting for its own transaction.
    const flagged = h.handle.db.transaction().execute(async (trx) => {
      await sql`set local petstore.audit_retention = 'on'`.execute(trx)
      await sql`delete from audit_events`.execute(trx)
    })
    await assert.rejects(flagged, /append-only: DELETE of an entry younger than 365 days refused/)
    // Replica mode switches ordinary triggers off (it needs a superuser, as the tests' role is); this one fires always.
    const replica = h.handle.db.transaction().execute(async (trx) => {
      await sql`set local session_replication_role = replica`.execute(trx)
      await sql`delete from audit_events`.execute(trx)
    })
    await assert.rejects(replica, /append-only: DELETE of an entry younger than 365 days refused/)
    const truncated = h.handle.db.transaction().execute(async (trx) => {
      await sql`set local petstore.audit_retention = 'on'`.execute(trx)
      await sql`truncate audit_events`.execute(trx)
    })
    await assert.rejects(truncated, /append-only: TRUNCATE refused/)
    // Another time zone for the session changes nothing either (the trigger reads the clock in UTC).
    const zoned = h.handle.db.transaction().execute(async (trx) => {
      await sql`set local time zone 'Pacific/Kiritimati'`.execute(trx)
      await deleteOf(trx, 'acct_0')
    })
    await assert.rejects(zoned, /younger than 365 days/)
    assert.deepEqual(await left(h.handle.db), ['acct_0', 'acct_1'])
  },
)

test(
  'a plain DELETE of an entry younger than the retention is refused; ' + 'an older one may go; UPDATE never',
  async (t) => {
    const h = await startHarness(t)
    const db = h.handle.db
    await entriesAged(db, [400, 364, 0])
    await assert.rejects(
      sql`delete from audit_events`.execute(db),
      /append-only: DELETE of an entry younger than 365 days refused/,
    )
    await assert.rejects(deleteOf(db, 'acct_1'), /younger than 365 days/)
    assert.deepEqual(await left(db), ['acct_0', 'acct_1', 'acct_2'], 'a refused statement deletes nothing')
    await assert.rejects(
      sql`update audit_events set action = 'account.created' where account_id = 'acct_0'`.execute(db),
      /append-only: UPDATE refused/,
    )
    await deleteOf(db, 'acct_0')
    assert.deepEqual(await left(db), ['acct_1', 'acct_2'])
  },
)

/** A database (a SQLite file, or an empty PostgreSQL schema) that the service can be started on several times. */
async function serviceDatabase(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  if (backend === 'postgres') return postgresSchema(t)
  const dir = await mkdtemp(join(tmpdir(), 'petstore-audit-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return join(dir, 'petstore.db')
}

const startService = (url: string, days: number) =>
  openAndMigrate(loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: url, AUDIT_RETENTION_DAYS: String(days) }), {
    poolSize: 2,
    create: true, // its first start makes the SQLite file, as `serve --create` does
  })

test(
  'AUDIT_RETENTION_DAYS reaches the trigger when the service starts: ' + 'shortened, then lengthened again',
  async (t) => {
    const url = await serviceDatabase(t)
    let service = await startService(url, 30)
    await entriesAged(service.db, [40, 20])
    await assert.rejects(deleteOf(service.db, 'acct_1'), /younger than 30 days/)
    await service.close()

    service = await startService(url, 365)
    await assert.rejects(
      deleteOf(service.db, 'acct_0'),
      /younger than 365 days/,
      'a longer retention protects what a shorter one did not',
    )
    await service.close()

    service = await startService(url, 30)
    t.after(() => service.close())
    await deleteOf(service.db, 'acct_0')
    assert.deepEqual(await left(service.db), ['acct_1'])
  },
)

test(
  'PostgreSQL: several instances starting at once, ' + 'with different retentions, all start; the last start decides',
  async (t) => {
    if (backend !== 'postgres') return t.skip('one process migrates a SQLite file')
    const url = await serviceDatabase(t)
    const services = await Promise.all([30, 90, 30, 90, 30, 90].map((days) => startService(url, days)))
    for (const service of services) await service.close()
    const last = await startService(url, 90)
    t.after(() => last.close())
    await entriesAged(last.db, [60])
    await assert.rejects(deleteOf(last.db, 'acct_0'), /younger than 90 days/)
  },
)
