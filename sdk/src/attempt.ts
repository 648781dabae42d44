// One HTTP attempt: fetch and read the whole body under one timer. No answer becomes ConnectionError (its message
// names the cause undici hides behind "fetch failed": `ECONNREFUSED 127.0.0.1:8080`) or TimeoutError.
import { ConnectionError, PetstoreError, TimeoutError } from './errors.js'
import { parseJson } from './json.js'

interface AttemptRequest {
  method: string
  url: string
  headers: Record<string, string>
  body: string | undefined
  timeoutMs: number
  /** Why the timer is as short as it is, for a TimeoutError's message. */
  timeoutReason: string
  signal: AbortSignal | undefined
}

export async function attemptOnce(
  doFetch: typeof fetch,
  request: AttemptRequest,
): Promise<{ response: Response; text: string }> {
  const { signal } = request
  signal?.throwIfAborted()
  const controller = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort()
  }, request.timeoutMs)
  const onAbort = () => controller.abort(signal?.reason)
  signal?.addEventListener('abort', onAbort, { once: true })
  try {
    const response = await doFetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body ?? null,
      signal: controller.signal,
    })
    return { response, text: await response.text() }
  } catch (cause) {
    if (signal?.aborted) throw signal.reason
    if (timedOut)
      throw new TimeoutError(
        `${request.method} ${request.url}: no answer within ${request.timeoutMs} ms (${request.timeoutReason})`,
        { cause },
      )
    throw new ConnectionError(`${request.method} ${request.url}: ${describeCause(cause)}`, { cause })
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener('abort', onAbort)
  }
}

type SystemError = {
  code?: unknown
  address?: unknown
  port?: unknown
  hostname?: unknown
  cause?: unknown
  errors?: unknown
}

/**
 * `ECONNREFUSED 127.0.0.1:8080 (fetch failed)`: the system error under fetch's TypeError (Node's undici puts it in
 * `cause`, an AggregateError's `errors` when several addresses were tried); the plain message where there is none
 * (browsers tell a page nothing more than "Failed to fetch").
 */
function describeCause(cause: unknown): string {
  const outer = cause instanceof Error ? cause.message : String(cause)
  const seen = new Set<unknown>()
  let current: unknown = (cause as SystemError | undefined)?.cause
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current)
    const error = current as SystemError
    // `localhost` tried on ::1 and 127.0.0.1: an AggregateError with a code, whose errors name the addresses.
    if (typeof error.code === 'string' && (typeof error.address === 'string' || !Array.isArray(error.errors))) {
      const port = error.port !== undefined ? `:${String(error.port)}` : ''
      const where =
        typeof error.address === 'string'
          ? ` ${error.address}${port}`
          : typeof error.hostname === 'string'
            ? ` ${error.hostname}`
            : ''
      return `${error.code}${where} (${outer})`
    }
    current = Array.isArray(error.errors) ? error.errors[0] : error.cause
  }
  const inner = (cause as SystemError | undefined)?.cause
  return inner instanceof Error ? `${inner.message} (${outer})` : outer
}

export function parseBody(text: string, response: Response): unknown {
  try {
    return parseJson(text)
  } catch (cause) {
    // A 2xx that is not JSON is a broken answer; an error page from a proxy is still the error of its status.
    if (!response.ok) return undefined
    throw new PetstoreError(
      `the answer (${response.status}) is not JSON`,
      response.status,
      undefined,
      response.headers.get('x-request-id') ?? undefined,
      response.headers,
      { cause },
    )
  }
}
