// Who a test's own changes (made through the accounts service, outside the CLI, portal or console) are recorded as.
import type { AuditActor } from '../../src/modules/audit/audit-event.js'

export const testActor: AuditActor = { kind: 'cli', user: 'test' }
