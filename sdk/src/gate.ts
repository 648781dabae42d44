// The rate-limit gate: one per client instance, in front of every request it sends (pets, orders and messages
// share the key's quota). Issue 27: 100 parallel calls on a fresh free key (60 a minute) used to get 40 refusals
// at once and a 15-minute ban (more than 30 refused requests in a minute). The gate sends:
// - until the first answer of a window, one request at a time (nothing is known of the quota yet);
// - then at most `remaining − requests in flight` more, from the lowest X-RateLimit-Remaining seen in the window;
// - nothing after a 429 (until its Retry-After) or an answer with Remaining 0 (until its window resets): every
//   call waits, each with its own jitter, and the first one through asks again before the others follow.
// A call whose wait would end past 60 s or past its deadline throws RateLimitError at once. Requests in flight
// are never sent twice; `maxConcurrency` caps them.
import { RateLimitError, TimeoutError, type PetstoreError } from './errors.js'
import type { Log } from './logger.js'
import { jitterMs, msUntilReset, rateLimitOf } from './quota.js'
import { sleep } from './sleep.js'

/** The longest the gate waits for a call; a longer wait is thrown at once (a ban, a used-up day). */
const MAX_GATE_WAIT_MS = 60_000

interface GateCall {
  /** `GET http://…/v1/pets`, for the log. */
  what: string
  /** Date.now() by which the call must be done; undefined: no deadline. */
  deadline: number | undefined
  signal: AbortSignal | undefined
}

interface Window {
  remaining: number
  /** X-RateLimit-Reset as sent: answers of the same window carry the same one. */
  resetEpoch: number
  /** Date.now() at which the window resets, from the answer's relative time. */
  resetAt: number
}

export class RateLimitGate {
  private inFlight = 0
  /** An answer came since the last reset: until one does, one request at a time. */
  private answered = false
  private window: Window | undefined
  private closedUntil = 0
  private closedBy: PetstoreError | { code: string; requestId: string | undefined; headers: Headers } | undefined
  private changed: Array<() => void> = []

  constructor(private readonly options: { maxConcurrency: number | undefined; log: Log; random?: () => number }) {}

  /** Waits until `call` may send one request; every `enter` must be followed by one `leave`. */
  async enter(call: GateCall): Promise<void> {
    for (;;) {
      call.signal?.throwIfAborted()
      const now = Date.now()
      if (this.closedUntil > now) {
        await this.waitWhileClosed(call, now)
        continue
      }
      if (this.window && this.window.resetAt <= now) {
        this.window = undefined
        this.answered = false
      }
      const { maxConcurrency } = this.options
      const budget = this.window ? this.window.remaining - this.inFlight : Infinity
      if (this.window && this.window.remaining <= 0 && this.inFlight === 0) {
        this.closedUntil = this.window.resetAt
        continue
      }
      if (
        (maxConcurrency !== undefined && this.inFlight >= maxConcurrency) ||
        (!this.answered && this.inFlight > 0) ||
        budget <= 0
      ) {
        await this.nextChange(call)
        continue
      }
      this.inFlight++
      return
    }
  }

  /** The request entered is done: `answer` when one came (any status), `error` for a 429 to close the gate with. */
  leave(
    answer:
      | { status: number; headers: Headers; requestId: string | undefined; error?: PetstoreError | undefined }
      | undefined,
  ): void {
    this.inFlight--
    if (answer) this.learn(answer)
    const waiting = this.changed
    this.changed = []
    for (const wake of waiting) wake()
  }

  private learn(answer: {
    status: number
    headers: Headers
    requestId: string | undefined
    error?: PetstoreError | undefined
  }): void {
    const now = Date.now()
    this.answered = true
    const quota = rateLimitOf(answer.headers)
    if (quota) {
      const resetEpoch = quota.reset.getTime() / 1000
      const same = this.window?.resetEpoch === resetEpoch
      // Answers of one window can arrive out of order: the lowest Remaining is the latest count.
      const remaining = same ? Math.min(this.window!.remaining, quota.remaining) : quota.remaining
      this.window = { remaining, resetEpoch, resetAt: now + msUntilReset(answer.headers, quota, now) }
      if (remaining <= 0)
        this.close(
          this.window.resetAt,
          answer.error ?? { code: 'rate_limit_exceeded', requestId: answer.requestId, headers: answer.headers },
        )
    }
    const retryAfter = answer.status === 429 ? answer.error?.retryAfter : undefined
    if (retryAfter !== undefined) this.close(now + retryAfter * 1000, answer.error)
  }

  private close(until: number, by: RateLimitGate['closedBy']): void {
    if (until <= this.closedUntil) return
    this.closedUntil = until
    this.closedBy = by
  }

  private async waitWhileClosed(call: GateCall, now: number): Promise<void> {
    const waitMs = this.closedUntil - now
    if (waitMs > MAX_GATE_WAIT_MS || (call.deadline !== undefined && this.closedUntil > call.deadline)) {
      const by = this.closedBy
      const retryAfter = Math.ceil(waitMs / 1000)
      const why = waitMs > MAX_GATE_WAIT_MS ? 'longer than the client waits (60 s)' : 'past the deadline (deadlineMs)'
      throw new RateLimitError(
        `${call.what}: not sent; the rate limit resets in ${retryAfter} s, ${why}`,
        429,
        by?.code ?? 'rate_limit_exceeded',
        by?.requestId,
        by?.headers ?? new Headers(),
        { retryAfter },
      )
    }
    let sleepMs = waitMs + jitterMs(waitMs, this.options.random?.())
    if (call.deadline !== undefined) sleepMs = Math.min(sleepMs, call.deadline - now)
    this.options.log.info(
      `${call.what}: waiting ${(sleepMs / 1000).toFixed(1)} s for the rate limit ` +
        `(${this.closedBy?.code ?? 'rate_limit_exceeded'}, request ${this.closedBy?.requestId ?? 'unknown'})`,
    )
    await sleep(sleepMs, call.signal)
  }

  /** Until a request leaves (or the deadline passes: TimeoutError; or the signal aborts). */
  private nextChange(call: GateCall): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer)
        call.signal?.removeEventListener('abort', onAbort)
        resolve()
      }
      const onAbort = () => {
        this.changed = this.changed.filter((w) => w !== done)
        clearTimeout(timer)
        reject(call.signal?.reason)
      }
      const timer =
        call.deadline === undefined
          ? undefined
          : setTimeout(
              () => {
                this.changed = this.changed.filter((w) => w !== done)
                call.signal?.removeEventListener('abort', onAbort)
                reject(new TimeoutError(`${call.what}: not sent within deadlineMs (waiting for requests in flight)`))
              },
              Math.max(0, call.deadline - Date.now()),
            )
      call.signal?.addEventListener('abort', onAbort, { once: true })
      this.changed.push(done)
    })
  }
}
