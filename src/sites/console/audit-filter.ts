// The audit page's filters, read from its query string (the page's form, its `Next page` link and the CSV link
// carry the same ones): account id, actor (an email or `cli`), action, a range of UTC dates and the paging cursor.
// A value that cannot be used is refused with a sentence saying which and why (a 400 page), never guessed at.
import { AUDIT_ACTIONS, type AuditAction } from '../../modules/audit/audit-event.js'
import type { AuditFilter } from '../../modules/audit/audit.repository.js'
import { PageError } from '../kit/reply.js'

const DAY_MS = 86_400_000

/** The filters as typed (to fill the form again and build links), blank ones left out. */
export interface AuditQueryValues {
  account?: string
  actor?: string
  action?: string
  from?: string
  to?: string
}

type AuditQuery = AuditQueryValues & { before?: string }

export interface ParsedAuditQuery {
  values: AuditQueryValues
  filter: Omit<AuditFilter, 'limit' | 'beforeSeq'>
  before?: bigint
}

const ACCOUNT_ID = /^[A-Za-z0-9_-]{1,100}$/
// Loose on purpose: it only has to be something an actor's address could be equal to.
const EMAIL = /^[^\s@]{1,200}@[^\s@]{1,200}$/
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const SEQ = /^[1-9]\d{0,18}$/
/** The largest bigint column value (PostgreSQL would refuse a larger one with an error, not an empty page). */
const MAX_SEQ = 9_223_372_036_854_775_807n

function dayStart(name: string, value: string): number {
  const m = DATE.exec(value)
  const at = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN
  // Date.UTC rolls 2027-02-31 over to March: a date that does not exist is refused, not moved.
  if (Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== value) {
    throw invalid(`“${name}” must be a date written YYYY-MM-DD, such as 2027-01-31.`)
  }
  return at
}

const invalid = (message: string) => new PageError(400, 'Invalid filter', message)

/** The filters as typed, trimmed, blank ones left out (checked or not: the form shows them again either way). */
export function auditQueryValues(query: Partial<Record<keyof AuditQuery, string>>): AuditQueryValues {
  const values: AuditQueryValues = {}
  for (const name of ['account', 'actor', 'action', 'from', 'to'] as const) {
    const value = query[name]?.trim()
    if (value) values[name] = value
  }
  return values
}

/** The filters checked; throws a PageError 400 whose message names the unusable one. */
export function parseAuditQuery(query: Partial<Record<keyof AuditQuery, string>>): ParsedAuditQuery {
  const values = auditQueryValues(query)
  const filter: ParsedAuditQuery['filter'] = {}
  if (values.account !== undefined) {
    if (!ACCOUNT_ID.test(values.account))
      throw invalid('“Account” must be an account id, such as acct_0123456789abcdef0123.')
    filter.accountId = values.account
  }
  if (values.actor !== undefined) {
    if (values.actor.toLowerCase() !== 'cli' && !EMAIL.test(values.actor))
      throw invalid('“Actor” must be an email address (an operator’s or an integrator’s) or cli.')
    filter.actor = values.actor
  }
  if (values.action !== undefined) {
    if (!(AUDIT_ACTIONS as readonly string[]).includes(values.action))
      throw invalid(`“Action” must be one of the listed actions; “${values.action}” is not one.`)
    filter.action = values.action as AuditAction
  }
  const from = values.from === undefined ? undefined : dayStart('From', values.from)
  const to = values.to === undefined ? undefined : dayStart('To', values.to)
  if (from !== undefined && to !== undefined && from > to) throw invalid('“From” must not be after “To”.')
  if (from !== undefined) filter.since = new Date(from).toISOString()
  // `To` includes its whole day.
  if (to !== undefined) filter.until = new Date(to + DAY_MS).toISOString()
  const before = query.before?.trim()
  if (before && (!SEQ.test(before) || BigInt(before) > MAX_SEQ))
    throw invalid('The page link is not valid: “before” must be an entry number. Start again from the first page.')
  return { values, filter, before: before ? BigInt(before) : undefined }
}

/** `?account=…&action=…` (blank values left out; `extra` appended), or '' with nothing to say. */
export function auditQueryString(values: AuditQueryValues, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries({ ...values, ...extra })) if (value) params.set(name, value)
  const text = params.toString()
  return text === '' ? '' : `?${text}`
}
