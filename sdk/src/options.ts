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
  /** The Idempotency-Key of a POST (default: a fresh UUID per call), sent on every attempt of the call. */
  idempotencyKey?: string | undefined
  maxRetries?: number | undefined
  timeoutMs?: number | undefined
  /** The whole call, retries and waits included: a wait that would end later throws at once. */
  deadlineMs?: number | undefined
  /** Aborts the call (and any wait between attempts); the abort reason is thrown, never retried. */
  signal?: AbortSignal | undefined
}

/** The per-call options, checked like the constructor's. */
export function checkedRequestOptions(options: RequestOptions | undefined): RequestOptions {
  const checked = options ?? {}
  optionalCount('maxRetries', checked.maxRetries, 0)
  optionalCount('timeoutMs', checked.timeoutMs, 1)
  optionalCount('deadlineMs', checked.deadlineMs, 1)
  if (checked.idempotencyKey !== undefined && typeof checked.idempotencyKey !== 'string')
    throw new TypeError('idempotencyKey must be a string')
  return checked
}
