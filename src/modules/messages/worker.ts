// Delivers queued messages: claims due ones oldest first, hands each to the sink, records the outcome.
// A failed attempt is retried on a schedule (MESSAGES_RETRY_SCHEDULE; by default seconds, then minutes, then hours,
// spanning about a day, as Standard Webhooks advises) up to `maxAttempts`, then the message is `failed`.
// `runOnce` is the whole step; `start` repeats it on a timer.
import type { Logger } from '../../kernel/logger.js'
import type { Clock } from '../../kernel/clock.js'
import { isDatabaseUnavailable } from '../../db/unavailable.js'
import { createOutageLog, type OutageLog } from '../../ops/outage-log.js'
import { retryDelay } from '../../kernel/retry-delay.js'
import type { MessagesRepository } from './messages.repository.js'
import type { MessageSink } from './sinks.js'

interface WorkerOptions {
  messages: MessagesRepository
  sink: MessageSink
  clock: Clock
  log: Logger
  maxAttempts: number
  /** Nominal delay before each retry (ms); past its end the last one repeats. */
  retryScheduleMs: number[]
  /** A number in [0, 1]; the jitter's source (Math.random; a test passes a fixed one). */
  random?: () => number
  pollMs: number
  batchSize?: number
  /** A claimed message not settled within this time is handed out again (its worker died). */
  leaseMs?: number
  /** The process's database outage (shared with the request handlers); the worker's own when absent. */
  databaseOutage?: OutageLog
  /** Lines about an outage repeat at most this often (default 30 s). */
  outageReportEveryMs?: number
}

export function createMessageWorker(options: WorkerOptions) {
  const { messages, sink, clock, log, maxAttempts, retryScheduleMs, random = Math.random } = options
  let timer: NodeJS.Timeout | undefined
  let running: Promise<number> | undefined
  let stopped = false
  // While the database is down every poll fails: the outage is logged once, with a count every 30 s, not a stack
  // every poll. So is a receiver that keeps failing (each message's failed attempt still gets its own line).
  const reportEveryMs = options.outageReportEveryMs
  const database = options.databaseOutage ?? createOutageLog({ dependency: 'database', log, clock, reportEveryMs })
  const steps = createOutageLog({
    dependency: 'message worker',
    log,
    clock,
    reportEveryMs,
    withError: true,
    startMessage: (reason) => `message worker step failed: ${reason}`,
  })
  const receiver = createOutageLog({
    dependency: 'message sink',
    log,
    clock,
    reportEveryMs,
    startMessage: (reason) => `message deliveries failing: ${reason}`,
    endMessage: 'message deliveries succeed again',
  })

  async function runOnce(): Promise<number> {
    const batch = await messages.claimDue({ limit: options.batchSize ?? 20, leaseMs: options.leaseMs ?? 60_000 })
    // Each outcome is written as soon as it is known, and the step ends when all are committed: written one by
    // one and awaited in turn, each would be a commit (a disk flush) of its own.
    const recorded: Promise<void>[] = []
    for (const message of batch) {
      try {
        await sink.deliver(message)
        receiver.ok()
        recorded.push(messages.markDelivered(message.seq))
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error)
        receiver.failed(error)
        const retryAt =
          message.attempts >= maxAttempts
            ? undefined
            : clock.now() + retryDelay(retryScheduleMs, message.attempts, random)
        recorded.push(messages.markAttemptFailed(message.seq, reason, retryAt))
        log.warn(
          { messageId: message.id, attempt: message.attempts, reason, final: retryAt === undefined },
          'message delivery failed',
        )
      }
    }
    await Promise.all(recorded)
    return batch.length
  }

  function schedule(delay: number): void {
    if (stopped) return
    timer = setTimeout(() => {
      running = runOnce().then(
        (n) => {
          database.ok()
          steps.ok()
          return n
        },
        (err: unknown) => {
          if (isDatabaseUnavailable(err)) database.failed(err)
          else steps.failed(err)
          return 0
        },
      )
      // A full batch means more may be waiting: go on at once.
      running.then((n) => schedule(n >= (options.batchSize ?? 20) ? 0 : options.pollMs))
    }, delay)
  }

  return {
    runOnce,
    start: () => schedule(0),
    /** Stops the timer and waits for the step in progress, so nothing is cut off mid-delivery. */
    async stop(): Promise<void> {
      stopped = true
      if (timer) clearTimeout(timer)
      await running
    },
  }
}

export type MessageWorker = ReturnType<typeof createMessageWorker>
