// One call of the API: the request, its attempts (retries with the same Idempotency-Key) through the client's
// rate-limit gate, a timeout per attempt and an optional deadline for the call, `onResponse` and a log line for
// every answer, and the parsed body or the error. Only web-platform APIs: fetch, AbortController, Headers, crypto,
// setTimeout.
import { ApiPromise, type WithResponse } from './api-promise.js'
import { attemptOnce, parseBody } from './attempt.js'
import { ConnectionError, errorFromResponse, type PetstoreError } from './errors.js'
import type { RateLimitGate } from './gate.js'
import { stringifyJson } from './json.js'
import type { Log } from './logger.js'
import { checkedHeaders, checkedRequestOptions, type RequestOptions } from './options.js'
import { randomUuid } from './platform.js'
import { rateLimitOf, type RateLimit } from './quota.js'
import { isRetryable, retryDelayMs } from './retry.js'
import { sleep } from './sleep.js'

export type { RateLimit, RequestOptions }

/** What `onResponse` is told about every HTTP answer, the answers of retried attempts included. */
export interface ResponseInfo {
  method: string
  url: string
  status: number
  /** 1 for the first attempt of a call, 2 for its first retry, and so on. */
  attempt: number
  requestId: string | undefined
  /** Undefined when the answer has no X-RateLimit-* headers (an answer from a proxy in front of the service). */
  rateLimit: RateLimit | undefined
}

export interface TransportSettings {
  apiKey: string
  maxRetries: number
  timeoutMs: number
  deadlineMs: number | undefined
  fetch: typeof fetch
  onResponse: ((info: ResponseInfo) => void) | undefined
  log: Log
  gate: RateLimitGate
  userAgent: string | undefined
  /** Sent with every call (`defaultHeaders`, checked, names lower-cased). */
  defaultHeaders: Record<string, string>
}

interface Call {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  url: string
  body?: unknown
  options?: RequestOptions | undefined
  /**
   * A POST the service takes no Idempotency-Key for (the webhook endpoints'): none is sent, and `idempotencyKey` is
   * a TypeError. `'repeatable'`: doing it twice is harmless, so it is retried like any call. `'once'`: a retry after
   * an attempt whose outcome is unknown (no answer, or a 5xx) could do it twice, so only a 429 (an answer that shows
   * nothing was done) is retried.
   */
  unkeyed?: 'once' | 'repeatable'
  /**
   * A DELETE: a 404 on a retry after an attempt whose outcome is unknown (no answer, or a 5xx) means that attempt
   * did the work, so the call succeeds (with status 404 and no data) instead of throwing.
   */
  goneMeansDone?: boolean
}

/** The parsed JSON body (int64 fields as bigint; undefined for an empty body) with its answer. */
type Answer = WithResponse<unknown>

/**
 * A call whose result is `shape(answer)`, as the ApiPromise every method returns. `request` is built inside the
 * promise, so a bad argument (an int64 that is not one) rejects the call like every other error, sending nothing.
 */
export function call<T>(settings: TransportSettings, request: () => Call, shape: (answer: Answer) => T): ApiPromise<T> {
  const answer = Promise.resolve().then(() => send(settings, request()))
  return new ApiPromise(answer.then((sent) => ({ ...sent, data: shape(sent) })))
}

/** The Idempotency-Key as a structured-field string (draft-ietf-httpapi-idempotency-key-header): quoted. */
const sfString = (key: string) => `"${key.replace(/[\\"]/g, '\\$&')}"`
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

async function send(settings: TransportSettings, call: Call): Promise<Answer> {
  const options = checkedRequestOptions(call.options)
  const { signal } = options
  const maxRetries = options.maxRetries ?? settings.maxRetries
  const timeoutMs = options.timeoutMs ?? settings.timeoutMs
  const deadlineMs = options.deadlineMs ?? settings.deadlineMs
  const deadline = deadlineMs === undefined ? undefined : Date.now() + deadlineMs
  const what = `${call.method} ${call.url}`
  // The caller's headers first; the client's own come after and are never theirs to set (checkedHeaders refuses them).
  const headers: Record<string, string> = {
    ...settings.defaultHeaders,
    ...checkedHeaders('headers', options.headers),
    accept: 'application/json',
    authorization: `Bearer ${settings.apiKey}`,
  }
  if (settings.userAgent) headers['user-agent'] = settings.userAgent
  if (call.body !== undefined) headers['content-type'] = 'application/json'
  // Every POST carries a key, the same on every attempt: a retry after a lost answer is replayed, never done twice.
  // Except those the service takes none for: a key there would promise what the service does not do.
  if (call.unkeyed !== undefined && options.idempotencyKey !== undefined)
    throw new TypeError(`${what} takes no idempotencyKey: the service does not support one for it`)
  if (call.method === 'POST' && call.unkeyed === undefined)
    headers['idempotency-key'] = sfString(options.idempotencyKey ?? randomUuid())
  const body = call.body === undefined ? undefined : stringifyJson(call.body)

  let earlierOutcomeUnknown = false
  for (let attempt = 1; ; attempt++) {
    if (attempt > 1) headers['x-petstore-retry-count'] = String(attempt - 1)
    await settings.gate.enter({ what, deadline, signal })
    let error: PetstoreError
    let answered: Parameters<RateLimitGate['leave']>[0]
    const started = Date.now()
    try {
      const left = deadline === undefined ? Infinity : deadline - started
      const request = { method: call.method, url: call.url, headers, body, signal }
      const limit =
        left < timeoutMs
          ? { timeoutMs: Math.max(1, left), timeoutReason: 'deadlineMs' }
          : { timeoutMs, timeoutReason: 'timeoutMs' }
      const { response, text } = await attemptOnce(settings.fetch, { ...request, ...limit })
      const requestId = response.headers.get('x-request-id') ?? undefined
      const rateLimit = rateLimitOf(response.headers)
      answered = { status: response.status, headers: response.headers, requestId }
      settings.onResponse?.({
        method: call.method,
        url: call.url,
        status: response.status,
        attempt,
        requestId,
        rateLimit,
      })
      const data = text === '' ? undefined : parseBody(text, response)
      const quota = rateLimit ? `, quota ${rateLimit.remaining}/${rateLimit.limit}` : ''
      const line =
        `${what} → ${response.status} in ${Date.now() - started} ms (attempt ${attempt}, request ` +
        `${requestId ?? 'unknown'}${quota})`
      if (response.ok || (response.status === 404 && call.goneMeansDone && earlierOutcomeUnknown)) {
        settings.log.debug(line)
        return { data: response.ok ? data : undefined, response, requestId, rateLimit }
      }
      error = errorFromResponse(response.status, response.headers, data)
      answered.error = error
      settings.log[isRetryable(error) ? 'warn' : 'debug'](`${line}: ${error.code ?? 'no code'}`)
    } catch (thrown) {
      if (!(thrown instanceof ConnectionError)) throw thrown
      error = thrown
      settings.log.warn(
        `${what} → ${error.name} after ${Date.now() - started} ms (attempt ${attempt}): ${error.message}`,
      )
    } finally {
      settings.gate.leave(answered)
    }
    const delay = retryDelayMs(error, attempt, maxRetries)
    if (delay === undefined || (call.unkeyed === 'once' && error.status !== 429)) throw error
    earlierOutcomeUnknown ||= error.status === undefined || error.status >= 500
    // A 429 with Retry-After closed the gate until then: the gate's wait is this retry's wait too.
    const waitMs = error.status === 429 && error.retryAfter !== undefined ? 0 : delay
    if (deadline !== undefined && Date.now() + waitMs > deadline) throw error
    settings.log.info(
      `${what}: retry ${attempt} of ${maxRetries} ` +
        `${waitMs > 0 ? `in ${seconds(waitMs)}` : 'when the rate limit allows'}`,
    )
    await sleep(waitMs, signal)
  }
}
