// The audit log as CSV (RFC 4180), every entry matching the filters, newest first, read in bounded batches so a
// long log never sits in memory whole. Cells are safe to open in a spreadsheet: one that begins with = + - @, a
// tab or a carriage return would be read as a formula there (CSV injection), so it gets a leading apostrophe.
import type { AuditEvent } from '../../modules/audit/audit-event.js'
import { actorText, changeLines } from '../../modules/audit/audit-format.js'
import type { AuditFilter } from '../../modules/audit/audit.repository.js'

/** Entries read per query. */
export const CSV_BATCH = 500

const FORMULA_START = /^[=+\-@\t\r]/

export function csvCell(value: string | null | undefined): string {
  let text = value ?? ''
  if (FORMULA_START.test(text)) text = `'${text}`
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

const csvLine = (cells: Array<string | null | undefined>): string => `${cells.map(csvCell).join(',')}\r\n`

const CSV_HEADER = csvLine([
  'seq',
  'time',
  'actor',
  'actor kind',
  'actor id',
  'actor address',
  'action',
  'account',
  'target kind',
  'target id',
  'changes',
])

function csvRow(e: AuditEvent): string {
  return csvLine([
    e.seq,
    e.at,
    actorText(e.actor),
    e.actor.kind,
    e.actor.id,
    e.actor.address,
    e.action,
    e.accountId,
    e.target?.kind,
    e.target?.id,
    changeLines(e.changes).join('; '),
  ])
}

/**
 * The header, then every matching entry, a batch (one query) at a time. `first` is the first batch, read before
 * the answer starts (so that a database that cannot be reached gets an error page, not a cut-off file).
 */
export async function* auditCsv(
  list: (filter: AuditFilter) => Promise<AuditEvent[]>,
  filter: Omit<AuditFilter, 'limit' | 'beforeSeq'>,
  first: AuditEvent[],
): AsyncGenerator<string> {
  yield CSV_HEADER
  let batch = first
  for (;;) {
    if (batch.length > 0) yield batch.map(csvRow).join('')
    if (batch.length < CSV_BATCH) return
    batch = await list({ ...filter, beforeSeq: BigInt(batch.at(-1)!.seq), limit: CSV_BATCH })
  }
}
