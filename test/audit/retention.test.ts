// Retention: the running service's job deletes entries older than AUDIT_RETENTION_DAYS and nothing younger; nothing
// else may change or delete an entry (real SQL against the real database: PostgreSQL's trigger refuses UPDATE and
// DELETE outside the job's transaction; SQLite's refuses UPDATE).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { createAuditRetention } from '../../src/audit/audit-retention.js'
import { createAuditRepository } from '../../src/audit/audit.repository.js'
import { loadConfig } from '../../src/config.js'
import { backend } from '../helpers/backend.js'
import { startHarness } from '../helpers/harness.js'

const DAY = 24 * 60 * 60 * 1000
const cli = { kind: 'cli', user: 'alice' } as const

async function withEntries(t: Parameters<typeof startHarness>[0]) {
  const h = await startHarness(t)
  const audit = createAuditRepository({ db: h.handle.db, clock: h.clock })
  const start = h.clock.now()
  // Three entries: 400, 366 and 10 days old as seen from `start + 400 days`.
  for (const [i, age] of [400, 366, 10].entries()) {
    h.clock.set(start + (400 - age) * DAY)
    await audit.record(cli, { action: 'ban.lifted', accountId: `acct_${i}`, target: { kind: 'key', id: `key_${i}` } })
  }
  h.clock.set(start + 400 * DAY)
  return { h, audit }
}

test('AUDIT_RETENTION_DAYS: 365 by default, a positive whole number of days', () => {
  assert.equal(loadConfig({}).auditRetentionDays, 365)
  assert.equal(loadConfig({ AUDIT_RETENTION_DAYS: '30' }).auditRetentionDays, 30)
  for (const bad of ['0', '-1', '1.5', 'a year']) assert.throws(() => loadConfig({ AUDIT_RETENTION_DAYS: bad }), /AUDIT_RETENTION_DAYS/)
})

test('the retention job deletes entries older than the retention, and only those', async (t) => {
  const { h, audit } = await withEntries(t)
  const job = createAuditRetention({ audit, clock: h.clock, days: 365 })
  assert.equal(await job.run(), 2)
  const left = await audit.list({ limit: 10 })
  assert.deepEqual(left.map((e) => e.accountId), ['acct_2'])
  assert.equal(await job.run(), 0, 'a second pass finds nothing')
  // As the server runs it: at start, then on its timer.
  h.clock.set(h.clock.now() + 400 * DAY)
  const running = createAuditRetention({ audit, clock: h.clock, days: 365, everyMs: 60_000 })
  running.start()
  await running.stop()
  assert.deepEqual(await audit.list({ limit: 10 }), [])
})

test('an entry cannot be changed with plain SQL', async (t) => {
  const { h } = await withEntries(t)
  await assert.rejects(sql`update audit_events set action = 'account.created'`.execute(h.handle.db), /append-only/)
  const rows = await h.handle.db.selectFrom('audit_events').select('action').execute()
  assert.ok(rows.every((r) => r.action === 'ban.lifted'))
})

test('PostgreSQL: a plain DELETE (or TRUNCATE) is refused; the retention job alone deletes', async (t) => {
  if (backend !== 'postgres') return t.skip('the trigger that refuses DELETE is PostgreSQL’s')
  const { h, audit } = await withEntries(t)
  await assert.rejects(sql`delete from audit_events`.execute(h.handle.db), /append-only: DELETE refused/)
  await assert.rejects(sql`truncate audit_events`.execute(h.handle.db), /append-only/)
  // The job's permission is its own transaction's: it does not leak to the connection afterwards.
  assert.equal(await audit.purge(new Date(h.clock.now() - 365 * DAY).toISOString()), 2)
  await assert.rejects(sql`delete from audit_events`.execute(h.handle.db), /append-only: DELETE refused/)
  assert.equal((await h.handle.db.selectFrom('audit_events').select('seq').execute()).length, 1)
})
