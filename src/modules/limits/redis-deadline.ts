// When a Redis command has waited too long: telling a Redis that is silent (paused, hung, cut off) from a process
// that was too busy to read an answer that had arrived.
//
// A plain timer (ioredis's `commandTimeout`) counts event-loop time: when this process is busy (a burst of
// requests, a long synchronous task, other processes holding every CPU), the timer's callback runs late, in the
// timers phase, before the poll phase that would have read the answer already waiting in the socket. The
// command fails, the request falls to the per-process fallback, and the shared quota and ban rule stop holding.
// So a command is given up only when all of these hold:
// - the timer has fired and, after that, one poll phase has run (the check is deferred with setImmediate, which
//   runs after it): an answer already in the socket buffer has been read and has settled the command;
// - the check ran on time (within a slack of when it was due): if it ran late, this process was not listening
//   for part of the wait, and Redis gets a fresh `timeoutMs` from now;
// - nothing at all came from Redis since the wait began: a Redis that answers other commands is behind, not
//   silent (it answers in order), and is waited for.
// However busy this process stays, a command is given up after `hardLimitMs` in all.
import { performance } from 'node:perf_hooks'

/** A command given up by the deadline. */
class RedisSilentError extends Error {
  constructor(waitedMs: number) {
    super(`Redis did not answer within ${Math.round(waitedMs)} ms`)
    this.name = 'RedisSilentError'
  }
}

interface DeadlineOptions {
  /** REDIS_TIMEOUT_MS: how long Redis may stay silent while this process is free to hear it. */
  timeoutMs: number
  /** When anything last arrived from Redis (performance.now() ms). */
  lastHeardAt: () => number
}

/** Runs late by more than this, a check does not count: the process was busy. */
const lateSlackMs = (timeoutMs: number) => Math.max(5, timeoutMs / 5)
/** The longest any command waits, however busy the process: 20 timeouts, at least 1 s. */
const hardLimitMs = (timeoutMs: number) => Math.max(1_000, 20 * timeoutMs)

export type Deadline = <T>(command: Promise<T>) => Promise<T>

export function createDeadline({ timeoutMs, lastHeardAt }: DeadlineOptions): Deadline {
  const slack = lateSlackMs(timeoutMs)
  const hardLimit = hardLimitMs(timeoutMs)
  return <T>(command: Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const sentAt = performance.now()
      let waitStart = sentAt
      let due = sentAt + timeoutMs
      let settled = false
      let timer = setTimeout(fired, timeoutMs)
      command.then(
        (value) => {
          settled = true
          clearTimeout(timer)
          resolve(value)
        },
        (error: unknown) => {
          settled = true
          clearTimeout(timer)
          reject(error)
        },
      )
      function fired(): void {
        // After this turn's poll phase: an answer that is already here settles the command first.
        setImmediate(() => {
          if (settled) return
          const now = performance.now()
          const late = now - due > slack
          const heard = lastHeardAt() > waitStart
          if ((late || heard) && now - sentAt < hardLimit) {
            const delay = Math.min(timeoutMs, hardLimit - (now - sentAt))
            waitStart = now
            due = now + delay
            timer = setTimeout(fired, delay)
            return
          }
          settled = true
          reject(new RedisSilentError(now - sentAt))
        })
      }
    })
}
