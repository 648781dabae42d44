// Who the CLI's changes are recorded as in the audit log: the operating-system user running it.
import os from 'node:os'
import type { AuditActor } from '../modules/audit/audit-event.js'

export function cliActor(): Extract<AuditActor, { kind: 'cli' }> {
  let user: string
  try {
    user = os.userInfo().username
  } catch {
    // A uid with no passwd entry (some containers): the environment's word, or a placeholder that says so.
    user = process.env.USER ?? process.env.LOGNAME ?? 'unknown'
  }
  return { kind: 'cli', user }
}
