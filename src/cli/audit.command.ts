import { Command, InvalidArgumentError } from 'commander'
import { actorText, changeLines } from '../modules/audit/audit-format.js'
import type { AuditEvent } from '../modules/audit/audit-event.js'
import { createAuditRepository } from '../modules/audit/audit.repository.js'
import { systemClock } from '../kernel/clock.js'
import { output, positiveInteger, withDatabase } from './run.js'

// A date (midnight UTC) or an instant with a time zone; a local time without a zone is ambiguous.
const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/

function instant(raw: string): string {
  const at = ISO.test(raw) ? Date.parse(raw) : NaN
  if (Number.isNaN(at))
    throw new InvalidArgumentError(
      'It must be an ISO 8601 date or instant with a time zone, like 2027-01-31 or 2027-01-31T12:00:00Z.',
    )
  return new Date(at).toISOString()
}

function describe(e: AuditEvent): string {
  const target = e.target === null ? '' : `  ${e.target.kind} ${e.target.id}`
  const account =
    e.accountId === null || (e.target?.kind === 'account' && e.target.id === e.accountId)
      ? ''
      : `  account ${e.accountId}`
  const from = e.actor.address ? ` from ${e.actor.address}` : ''
  const changes = changeLines(e.changes)
  return `${e.at}  ${e.action}${target}${account}  by ${actorText(e.actor)}${from}${
    changes.length ? `  (${changes.join('; ')})` : ''
  }`
}

export function auditCommand(): Command {
  const audit = new Command('audit').description(
    'read the audit log (every change to accounts, keys, plans and operators)',
  )

  audit
    .command('list')
    .description('list audit log entries, newest first')
    .option('--account <id>', "only this account's entries")
    .option('--since <iso>', 'only entries from this ISO 8601 date or instant on', instant)
    .option('--limit <n>', 'at most this many entries (default 1000)', positiveInteger)
    .option('--json', 'print one JSON object')
    .action((opts: { account?: string; since?: string; limit?: number; json?: boolean }) =>
      withDatabase(async ({ handle }) => {
        const events = await createAuditRepository({ db: handle.db, clock: systemClock }).list({
          accountId: opts.account,
          since: opts.since,
          limit: opts.limit ?? 1000,
        })
        output(!!opts.json, { events }, () =>
          events.length === 0 ? 'no audit entries' : events.map(describe).join('\n'),
        )
      }),
    )

  return audit
}
