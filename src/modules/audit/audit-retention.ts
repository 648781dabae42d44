// The audit log's retention: entries older than AUDIT_RETENTION_DAYS are deleted by the running service, at start
// and every hour. Their age is measured by the database's clock, as the trigger that refuses any younger one's
// deletion measures it (audit-guard.ts). Every instance runs it; the delete is idempotent, so two at once only share
// the work.
import type { AuditRepository } from './audit.repository.js'

const AUDIT_RETENTION_EVERY_MS = 60 * 60 * 1000

interface Log {
  info: (obj: object, msg: string) => void
  error: (obj: object, msg: string) => void
}

export function createAuditRetention({
  audit,
  days,
  log,
  everyMs = AUDIT_RETENTION_EVERY_MS,
}: {
  audit: Pick<AuditRepository, 'purge'>
  days: number
  log?: Log
  everyMs?: number
}) {
  let timer: NodeJS.Timeout | undefined
  let running: Promise<unknown> = Promise.resolve()

  /** One pass: deletes the entries older than the retention; returns how many. */
  async function run(): Promise<number> {
    const deleted = await audit.purge(days)
    if (deleted > 0) log?.info({ deleted, days }, 'deleted audit log entries past their retention')
    return deleted
  }

  function pass(): void {
    running = run().catch((err: unknown) =>
      log?.error({ err }, 'deleting audit log entries past their retention failed'),
    )
  }

  return {
    run,
    start(): void {
      pass()
      timer = setInterval(pass, everyMs).unref()
    },
    /** Stops the timer and waits for a pass under way. */
    async stop(): Promise<void> {
      clearInterval(timer)
      await running
    },
  }
}
