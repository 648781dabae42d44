// The CLI's changes are on record as `cli` with the operating-system user; `petstore audit list` prints the log
// newest first (human lines, or one JSON object with --json), filtered by --account and --since; `keys unban`
// records ban.lifted through the running service, with the CLI's user as actor. Real processes on a database file.
import assert from 'node:assert/strict'
import os from 'node:os'
import { test } from 'node:test'
import type { AuditEvent } from '../../src/modules/audit/audit-event.js'
import { createManualClock } from '../../src/kernel/clock.js'
import { appOnFile } from '../helpers/app-on-file.js'
import { cliOn, oneLineFailure } from '../helpers/cli.js'
import { bearer } from '../helpers/harness.js'

const user = os.userInfo().username

test('CLI changes are recorded as cli with the OS user; audit list --json is newest first and filters', async (t) => {
  const cli = cliOn(t)
  const { id: accountId } = await cli.json(['accounts', 'create', '--name', 'Audited'])
  const { id: otherId } = await cli.json(['accounts', 'create', '--name', 'Other'])
  await cli.json(['accounts', 'set-plan', accountId, 'pro'])
  const key = await cli.json<{ id: string; key: string }>(['keys', 'create', '--account', accountId, '--name', 'ci'])
  const rolled = await cli.json<{ created: { id: string; key: string } }>(['keys', 'roll', key.id, '--grace', '0'])
  await cli.json(['keys', 'revoke', rolled.created.id])
  await cli.json(['keys', 'revoke', rolled.created.id])

  const { events } = await cli.json<{ events: AuditEvent[] }>(['audit', 'list', '--account', accountId])
  assert.deepEqual(
    events.map((e) => e.action),
    ['key.revoked', 'key.rolled', 'key.created', 'account.plan_changed', 'account.created'],
    'newest first; revoking a revoked key is no change',
  )
  for (const e of events) assert.deepEqual(e.actor, { kind: 'cli', id: user, email: null, address: null })
  assert.deepEqual(events[3]!.changes, {
    before: { plan: 'free', perMinute: 60, perDay: 1000 },
    after: { plan: 'pro', perMinute: 300, perDay: 10000 },
  })

  const all = await cli.json<{ events: AuditEvent[] }>(['audit', 'list'])
  assert.equal(all.events.length, 6)
  assert.ok(all.events.some((e) => e.accountId === otherId))
  const future = await cli.json<{ events: AuditEvent[] }>(['audit', 'list', '--since', '2999-01-01'])
  assert.deepEqual(future.events, [])
  const since = await cli.json<{ events: AuditEvent[] }>(['audit', 'list', '--since', events[0]!.at])
  assert.ok(since.events.length >= 1 && since.events.every((e) => e.at >= events[0]!.at))

  const human = await cli.run(['audit', 'list', '--account', accountId])
  assert.equal(human.code, 0, human.stderr)
  const lines = human.stdout.trimEnd().split('\n')
  assert.equal(lines.length, 5)
  assert.match(
    lines[3]!,
    new RegExp(
      'account\\.plan_changed {2}account acct_\\S+ {2}by cli \\(user .+\\) {2}' +
        '\\(plan: free → pro; perMinute: 60 → 300; perDay: 1000 → 10000\\)$',
    ),
  )
  for (const output of [human.stdout, JSON.stringify(all)]) {
    assert.ok(!output.includes(key.key) && !output.includes(rolled.created.key), 'no secret in the audit log')
  }
})

test('audit list: a bad --since is a one-line usage error (exit 2)', async (t) => {
  const cli = cliOn(t)
  for (const bad of ['yesterday', '2027-13-45', '2027-01-01T10:00']) {
    const r = await cli.run(['audit', 'list', '--since', bad])
    assert.equal(r.code, 2, r.stderr)
    assert.match(oneLineFailure(r), /--since.* must be an ISO 8601 date or instant with a time zone/)
  }
  const empty = await cli.run(['audit', 'list'])
  assert.equal(empty.stdout, 'no audit entries\n')
})

test(
  'keys unban records ban.lifted with the CLI user as ' + 'actor (through the running service); no ban, no entry',
  async (t) => {
    const cli = cliOn(t)
    const { id: accountId } = await cli.json(['accounts', 'create', '--name', 'Noisy'])
    const key = await cli.json<{ id: string; key: string }>(['keys', 'create', '--account', accountId])
    // A clock that stands still: the 100 requests below count in one minute's window whenever the test runs (on
    // the system's clock, a window that ended among them left too few refusals for a ban).
    const app = await appOnFile(t, cli.file, {}, createManualClock())
    await app.listen({ host: '127.0.0.1', port: 0 })
    const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`

    assert.equal((await cli.json<{ wasBanned: boolean }>(['keys', 'unban', key.id, '--url', url])).wasBanned, false)
    // Past the quota and on past the ban threshold.
    for (let i = 0; i < 100; i++) await app.inject({ url: '/v1/pets', headers: bearer(key.key) })
    assert.equal((await cli.json<{ wasBanned: boolean }>(['keys', 'unban', key.id, '--url', url])).wasBanned, true)

    const { events } = await cli.json<{ events: AuditEvent[] }>(['audit', 'list', '--account', accountId])
    const lifted = events.filter((e) => e.action === 'ban.lifted')
    assert.equal(lifted.length, 1, 'only the unban that lifted a ban')
    assert.deepEqual(lifted[0]!.actor, { kind: 'cli', id: user, email: null, address: null })
    assert.deepEqual(lifted[0]!.target, { kind: 'key', id: key.id })
  },
)
