// The checks the constructor and every call share: a bad count is a RangeError before anything is sent.
export function count(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min)
    throw new RangeError(`${name} must be an integer of at least ${min}; got ${String(value)}`)
  return value
}

export function optionalCount(name: string, value: number | undefined, min: number): number | undefined {
  return value === undefined ? undefined : count(name, value, min)
}

/** Per-call options; each overrides the client's setting of the same name for this call only. */
export interface RequestOptions {
  /**
   * The Idempotency-Key of a POST (default: a fresh UUID per call), sent on every attempt of the call. Not for the
   * webhook endpoints' POSTs, which the service takes none for (a TypeError there).
   */
  idempotencyKey?: string | undefined
  maxRetries?: number | undefined
  timeoutMs?: number | undefined
  /** The whole call, retries and waits included: a wait that would end later throws at once. */
  deadlineMs?: number | undefined
  /** Aborts the call (and any wait between attempts); the abort reason is thrown, never retried. */
  signal?: AbortSignal | undefined
  /** Headers for this call, over the client's `defaultHeaders` (never the ones the client sets: see RESERVED). */
  headers?: Record<string, string> | undefined
}

/**
 * The options of a POST the service takes no Idempotency-Key for (the webhook endpoints'): `idempotencyKey` is a
 * TypeError there.
 */
export type UnkeyedRequestOptions = Omit<RequestOptions, 'idempotencyKey'>

/**
 * Headers the client sets itself, which `defaultHeaders` and `headers` may not: the key (`apiKey`), the
 * Idempotency-Key (`idempotencyKey`), the User-Agent the service's logs and support read, the JSON media types, and
 * the retry count.
 */
const RESERVED = ['authorization', 'idempotency-key', 'user-agent', 'accept', 'content-type', 'x-petstore-retry-count']
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/** Extra headers, checked (a name that is no header name, a value with a line break, or a reserved header throws). */
export function checkedHeaders(name: string, headers: Record<string, string> | undefined): Record<string, string> {
  if (headers === undefined) return {}
  if (typeof headers !== 'object' || headers === null) throw new TypeError(`${name} must be an object of strings`)
  const checked: Record<string, string> = {}
  for (const [header, value] of Object.entries(headers)) {
    if (!TOKEN.test(header)) throw new TypeError(`${name}: ${JSON.stringify(header)} is not a header name`)
    if (typeof value !== 'string' || /[\r\n\0]/.test(value))
      throw new TypeError(`${name}: the value of ${header} must be a string on one line`)
    if (RESERVED.includes(header.toLowerCase()))
      throw new TypeError(`${name} may not set ${header}: the client sets it (see the README, Headers)`)
    checked[header.toLowerCase()] = value
  }
  return checked
}

/** The per-call options, checked like the constructor's. */
export function checkedRequestOptions(options: RequestOptions | undefined): RequestOptions {
  const checked = options ?? {}
  optionalCount('maxRetries', checked.maxRetries, 0)
  optionalCount('timeoutMs', checked.timeoutMs, 1)
  optionalCount('deadlineMs', checked.deadlineMs, 1)
  if (checked.idempotencyKey !== undefined && typeof checked.idempotencyKey !== 'string')
    throw new TypeError('idempotencyKey must be a string')
  checkedHeaders('headers', checked.headers)
  return checked
}
