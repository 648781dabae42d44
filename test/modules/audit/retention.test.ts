// Retention: the running service's job deletes entries older than AUDIT_RETENTION_DAYS and nothing younger; nothing
// may change an entry, nor delete a younger one (real SQL against the real database: the trigger refuses UPDATE,
// TRUNCATE and the DELETE of an entry younger than the retention, by the database's clock; see append-only.test.ts).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { keepAuditEntries } from '../../../src/modules/audit/audit-guard.js'
import { createAuditRetention } from '../../../src/modules/audit/audit-retention.js'
import { createAuditRepository } from '../../../src/modules/audit/audit.repository.js'
import { loadConfig } from '../../../src/kernel/config.js'
import { backend } from '../../helpers/backend.js'
import { startHarness } from '../../helpers/harness.js'

const DAY = 24 * 60 * 60 * 1000
const cli = { kind: 'cli', user: 'alice' } as const

async function withEntries(t: Parameters<typeof startHarness>[0]) {
  // Ages are the database's to measure (its own clock): the test clock starts 400 days in the real past.
  const start = Date.now() - 400 * DAY
  const h = await startHarness(t, { now: start })
  const audit = createAuditRepository({ db: h.handle.db, clock: h.clock })
  // Three entries: 400, 366 and 10 days old now.
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
  for (const bad of ['0', '-1', '1.5', 'a year'])
    assert.throws(() => loadConfig({ AUDIT_RETENTION_DAYS: bad }), /AUDIT_RETENTION_DAYS/)
})

test('the retention job deletes entries older than the retention, and only those', async (t) => {
  const { h, audit } = await withEntries(t)
  const job = createAuditRetention({ audit, days: 365 })
  assert.equal(await job.run(), 2)
  const left = await audit.list({ limit: 10 })
  assert.deepEqual(
    left.map((e) => e.accountId),
    ['acct_2'],
  )
  assert.equal(await job.run(), 0, 'a second pass finds nothing')
  // As the server runs it, started with AUDIT_RETENTION_DAYS=5 (written into the trigger first): at start, then on its
  // timer.
  await keepAuditEntries(h.handle.db, 5)
  const running = createAuditRetention({ audit, days: 5, everyMs: 60_000 })
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

test('a plain DELETE reaching a young entry (or TRUNCATE) is refused; the job deletes the old ones only', async (t) => {
  const { h, audit } = await withEntries(t)
  await assert.rejects(
    sql`delete from audit_events`.execute(h.handle.db),
    /append-only: DELETE of an entry younger than 365 days refused/,
  )
  if (backend === 'postgres')
    await assert.rejects(sql`truncate audit_events`.execute(h.handle.db), /append-only: TRUNCATE refused/)
  assert.equal(await audit.purge(365), 2)
  await assert.rejects(sql`delete from audit_events`.execute(h.handle.db), /append-only: DELETE of an entry younger/)
  assert.equal((await h.handle.db.selectFrom('audit_events').select('seq').execute()).length, 1)
})
