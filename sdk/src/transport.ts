// One call of the API: the request, its attempts (retries with the same Idempotency-Key), a timeout per
// attempt, `onResponse` for every answer, and the parsed body or the error. Only web-platform APIs: fetch,
// AbortController, Headers, crypto.randomUUID, setTimeout.
import { ConnectionError, errorFromResponse, PetstoreError, TimeoutError } from './errors.js'
import { parseJson, stringifyJson } from './json.js'
import { retryDelayMs } from './retry.js'

/** The quota window with the fewest requests left, from X-RateLimit-Limit, -Remaining and -Reset. */
export interface RateLimit {
  limit: number
  remaining: number
  /** When the window resets (X-RateLimit-Reset is Unix epoch seconds). */
  reset: Date
}

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

/** Per-call options; each overrides the client's setting of the same name for this call only. */
export interface RequestOptions {
  /** The Idempotency-Key of a POST (default: a fresh UUID per call), sent on every attempt of the call. */
  idempotencyKey?: string
  maxRetries?: number
  timeoutMs?: number
  /** Aborts the call (and any wait between attempts); the abort reason is thrown, never retried. */
  signal?: AbortSignal
}

export interface TransportSettings {
  apiKey: string
  maxRetries: number
  timeoutMs: number
  fetch: typeof fetch
  onResponse: ((info: ResponseInfo) => void) | undefined
}

export interface Call {
  method: 'GET' | 'POST' | 'DELETE'
  url: string
  body?: unknown
  options?: RequestOptions
  /**
   * A DELETE: a 404 on a retry after an attempt whose outcome is unknown (no answer, or a 5xx) means that attempt
   * did the work, so the call succeeds (with status 404 and no data) instead of throwing.
   */
  goneMeansDone?: boolean
}

export interface Answer {
  status: number
  headers: Headers
  /** The parsed JSON body (int64 fields as bigint); undefined for an empty body. */
  data: unknown
}

export function rateLimitOf(headers: Headers): RateLimit | undefined {
  const [limit, remaining, reset] = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].map((name) => Number(headers.get(name) ?? Number.NaN))
  if (!Number.isFinite(limit) || !Number.isFinite(remaining) || !Number.isFinite(reset)) return undefined
  return { limit: limit!, remaining: remaining!, reset: new Date(reset! * 1000) }
}

/** The Idempotency-Key as a structured-field string (draft-ietf-httpapi-idempotency-key-header): quoted. */
const sfString = (key: string) => `"${key.replace(/[\\"]/g, '\\$&')}"`

export async function send(settings: TransportSettings, call: Call): Promise<Answer> {
  const options = call.options ?? {}
  const maxRetries = options.maxRetries ?? settings.maxRetries
  const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${settings.apiKey}` }
  if (call.body !== undefined) headers['content-type'] = 'application/json'
  // Every POST carries a key, the same on every attempt: a retry after a lost answer is replayed, never done twice.
  if (call.method === 'POST') headers['idempotency-key'] = sfString(options.idempotencyKey ?? globalThis.crypto.randomUUID())
  const body = call.body === undefined ? undefined : stringifyJson(call.body)

  let earlierOutcomeUnknown = false
  for (let attempt = 1; ; attempt++) {
    let error: PetstoreError
    try {
      const { response, text } = await attemptOnce(settings.fetch, call, { headers, body }, options.timeoutMs ?? settings.timeoutMs, options.signal)
      settings.onResponse?.({
        method: call.method,
        url: call.url,
        status: response.status,
        attempt,
        requestId: response.headers.get('x-request-id') ?? undefined,
        rateLimit: rateLimitOf(response.headers),
      })
      const data = text === '' ? undefined : parseBody(text, response)
      if (response.ok) return { status: response.status, headers: response.headers, data }
      if (response.status === 404 && call.goneMeansDone && earlierOutcomeUnknown) return { status: 404, headers: response.headers, data: undefined }
      error = errorFromResponse(response.status, response.headers, data)
    } catch (thrown) {
      if (!(thrown instanceof ConnectionError)) throw thrown
      error = thrown
    }
    const delay = retryDelayMs(error, attempt, maxRetries)
    if (delay === undefined) throw error
    earlierOutcomeUnknown ||= error.status === undefined || error.status >= 500
    await sleep(delay, options.signal)
  }
}

/** One attempt: fetch and read the whole body under one timer; no answer becomes ConnectionError or TimeoutError. */
async function attemptOnce(
  doFetch: typeof fetch,
  call: Call,
  request: { headers: Record<string, string>; body: string | undefined },
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<{ response: Response; text: string }> {
  signal?.throwIfAborted()
  const controller = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort()
  }, timeoutMs)
  const onAbort = () => controller.abort(signal?.reason)
  signal?.addEventListener('abort', onAbort, { once: true })
  try {
    const response = await doFetch(call.url, { method: call.method, headers: request.headers, body: request.body, signal: controller.signal })
    return { response, text: await response.text() }
  } catch (cause) {
    if (signal?.aborted) throw signal.reason
    if (timedOut) throw new TimeoutError(`${call.method} ${call.url}: no answer within ${timeoutMs} ms`, { cause })
    throw new ConnectionError(`${call.method} ${call.url}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener('abort', onAbort)
  }
}

function parseBody(text: string, response: Response): unknown {
  try {
    return parseJson(text)
  } catch (cause) {
    // A 2xx that is not JSON is a broken answer; an error page from a proxy is still the error of its status.
    if (!response.ok) return undefined
    throw new PetstoreError(`the answer (${response.status}) is not JSON`, response.status, undefined, response.headers.get('x-request-id') ?? undefined, response.headers, { cause })
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted()
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
