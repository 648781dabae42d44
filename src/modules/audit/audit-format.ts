// An audit entry in words, for people: who did it and what changed (before → after), one line per field.
// Used by the console's audit page and its CSV export; plain text (the pages escape it).
import type { AuditEvent } from './audit-event.js'

/**
 * `ops@example.com (operator)`, `typo@example.com (no such operator)`, `owner@example.com (integrator)`,
 * `cli (user alice)`, `the service`.
 */
export function actorText(actor: AuditEvent['actor']): string {
  switch (actor.kind) {
    case 'operator':
      // No id: someone typed this email at the console's log-in, and no operator has it.
      return actor.id === null
        ? `${actor.email ?? 'unknown'} (no such operator)`
        : `${actor.email ?? actor.id} (operator)`
    case 'account':
      return `${actor.email ?? actor.id ?? 'unknown'} (integrator)`
    case 'cli':
      return `cli (user ${actor.id ?? 'unknown'})`
    default:
      return 'the service'
  }
}

function valueText(value: unknown): string {
  if (value === null || value === undefined) return 'none'
  if (typeof value === 'string') return value
  return JSON.stringify(value)
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * One line per field: `plan: free → pro` for a field in `before` and `after` (`none` where a side lacks it),
 * `name: CI` when there is only an `after`, `suspendedAt (before): …` when there is only a `before`, and
 * `reason: abuse` for the entry's other details. Null changes give no lines.
 */
export function changeLines(changes: Record<string, unknown> | null): string[] {
  if (changes === null) return []
  const { before, after, ...details } = changes
  const lines: string[] = []
  if (isRecord(before) && isRecord(after)) {
    for (const field of new Set([...Object.keys(before), ...Object.keys(after)]))
      lines.push(`${field}: ${valueText(before[field])} → ${valueText(after[field])}`)
  } else if (isRecord(after) && before === undefined) {
    for (const [field, value] of Object.entries(after)) lines.push(`${field}: ${valueText(value)}`)
  } else if (isRecord(before) && after === undefined) {
    for (const [field, value] of Object.entries(before)) lines.push(`${field} (before): ${valueText(value)}`)
  } else {
    if (before !== undefined) lines.push(`before: ${valueText(before)}`)
    if (after !== undefined) lines.push(`after: ${valueText(after)}`)
  }
  for (const [field, value] of Object.entries(details)) lines.push(`${field}: ${valueText(value)}`)
  return lines
}
