// When a failed attempt is tried again, and after how long (issue 17, like openai-node):
// - retried: no answer (ConnectionError, TimeoutError), 408, 409 `idempotency_key_in_progress`, 429 except
//   `temporarily_banned` (retrying only extends a ban), 500, 502, 503, 504; never any other answer;
// - the wait: Retry-After when the answer has one of at most 60 s (a longer one is thrown at once, with
//   `retryAfter` set), plus jitter over up to 1 s or 10 % (issue 27); otherwise 0.5 s doubling per retry, capped
//   at 8 s, less up to 25 % of jitter. (A 429's Retry-After is waited at the client's gate, gate.ts.)
import { ConnectionError, type PetstoreError } from './errors.js'
import { jitterMs } from './quota.js'

const MAX_RETRY_AFTER_SECONDS = 60
const FIRST_BACKOFF_MS = 500
const MAX_BACKOFF_MS = 8_000
const JITTER = 0.25
const RETRIED_STATUSES = new Set([408, 500, 502, 503, 504])

export function isRetryable(error: PetstoreError): boolean {
  if (error instanceof ConnectionError) return true
  const { status, code } = error
  if (status === undefined) return false
  if (status === 409) return code === 'idempotency_key_in_progress'
  if (status === 429) return code !== 'temporarily_banned'
  return RETRIED_STATUSES.has(status)
}

/** Exponential back-off before retry number `retry` (1 for the first retry). `random` in [0, 1). */
export function backoffMs(retry: number, random: number = Math.random()): number {
  const ms = Math.min(FIRST_BACKOFF_MS * 2 ** (retry - 1), MAX_BACKOFF_MS)
  return ms * (1 - random * JITTER)
}

/**
 * How long to wait before trying `error`'s request again as retry number `retry`, or undefined to throw it now:
 * not retryable, no retries left, or a Retry-After longer than the client waits.
 */
export function retryDelayMs(
  error: PetstoreError,
  retry: number,
  maxRetries: number,
  random: number = Math.random(),
): number | undefined {
  if (retry > maxRetries || !isRetryable(error)) return undefined
  const retryAfter = error.retryAfter
  if (retryAfter === undefined) return backoffMs(retry, random)
  return retryAfter <= MAX_RETRY_AFTER_SECONDS ? retryAfter * 1000 + jitterMs(retryAfter * 1000, random) : undefined
}
