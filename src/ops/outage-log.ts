// A dependency's outage in the log (the database, Redis, the webhook receiver, the mail server): one warning when it
// starts, a count of the calls that failed since the last line at most every `reportEveryMs` while it lasts, and one
// line when it ends. Callers report every failed call and every call that worked; what the log gets is the outage,
// not a line (and a stack trace) per poll or per refused request, which buried everything else while a database
// was down (the message worker alone wrote a stack every 250 ms).
import { systemClock, type Clock } from '../kernel/clock.js'
import { reasonOf } from '../kernel/reason.js'

interface OutageLogger {
  warn: (obj: object, msg: string) => void
  info: (obj: object, msg: string) => void
}

export interface OutageLog {
  /**
   * A call to the dependency failed (a stack is never logged: only its message). `quiet`: an outage it starts was
   * reported elsewhere.
   */
  failed: (error: unknown, options?: { quiet?: boolean }) => void
  /** A call to the dependency worked: ends the outage if there was one. */
  ok: () => void
  down: () => boolean
}

const OUTAGE_REPORT_EVERY_MS = 30_000

export function createOutageLog(input: {
  /** The dependency, as the log names it (`dependency` field, and the messages' subject): `database`, `Redis`. */
  dependency: string
  log: OutageLogger
  clock?: Clock
  reportEveryMs?: number
  /** The start warning's message, from the first failure's reason (default: `DEPENDENCY unreachable: REASON`). */
  startMessage?: (reason: string) => string
  /** The end line's message (default: `DEPENDENCY reachable again`). */
  endMessage?: string
  /** The start warning carries the first error whole, stack included (a failure that is not a plain outage: a bug). */
  withError?: boolean
}): OutageLog {
  const { dependency, log, clock = systemClock, reportEveryMs = OUTAGE_REPORT_EVERY_MS } = input
  let since: number | undefined
  let lastLine = 0
  let total = 0
  let sinceLastLine = 0

  return {
    failed(error, options) {
      const now = clock.now()
      total++
      sinceLastLine++
      if (since === undefined) {
        since = lastLine = now
        sinceLastLine = 0
        const reason = reasonOf(error)
        if (options?.quiet) return
        log.warn(
          { dependency, reason, ...(input.withError ? { err: error } : {}) },
          input.startMessage?.(reason) ?? `${dependency} unreachable: ${reason}`,
        )
        return
      }
      if (now - lastLine < reportEveryMs) return
      log.warn(
        { dependency, failedCalls: sinceLastLine, downMs: now - since, reason: reasonOf(error) },
        `${dependency} still unreachable`,
      )
      lastLine = now
      sinceLastLine = 0
    },
    ok() {
      if (since === undefined) return
      log.info(
        { dependency, failedCalls: total, downMs: clock.now() - since },
        input.endMessage ?? `${dependency} reachable again`,
      )
      since = undefined
      total = sinceLastLine = 0
    },
    down: () => since !== undefined,
  }
}

/**
 * The outages the whole process shares, so that the request handlers of both listeners and the background loops
 * report one database outage once. Lines go to `log`, or (services built without one, as in tests) to the log of
 * the first app that uses them.
 */
export function createDependencyOutages(input: { log?: OutageLogger; clock?: Clock }) {
  let log = input.log
  const forward: OutageLogger = { warn: (obj, msg) => log?.warn(obj, msg), info: (obj, msg) => log?.info(obj, msg) }
  return {
    database: createOutageLog({ dependency: 'database', log: forward, clock: input.clock }),
    mail: createOutageLog({ dependency: 'mail server', log: forward, clock: input.clock }),
    logTo(fallback: OutageLogger): void {
      log ??= fallback
    },
  }
}
