// What a call can throw. Every non-2xx answer is a PetstoreError of the class for its status (the service's
// `{code, message, status}` body, the X-Request-Id, Retry-After and the headers on it); a call that got no answer
// throws ConnectionError, or TimeoutError when the time ran out. Everything the client throws on purpose is a
// PetstoreError.

export class PetstoreError extends Error {
  override name = 'PetstoreError'
  /** Seconds the answer's Retry-After asked to wait (any status); undefined when it had none. */
  readonly retryAfter: number | undefined

  constructor(
    message: string,
    /** The HTTP status; undefined when no answer came (ConnectionError, TimeoutError). */
    readonly status: number | undefined,
    /** The service's error code (`pet_not_found`, `rate_limit_exceeded` …); undefined when the body had none. */
    readonly code: string | undefined,
    /** The X-Request-Id of the answer: quote it when reporting a problem. */
    readonly requestId: string | undefined,
    /** The headers of the answer (empty when no answer came). */
    readonly headers: Headers,
    options?: { cause?: unknown; retryAfter?: number | undefined },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.retryAfter = options?.retryAfter ?? retryAfterSeconds(headers)
  }
}

/** 400: the request was refused as malformed (`invalid_body`, `invalid_parameter` …); the message names the field. */
export class BadRequestError extends PetstoreError {
  override name = 'BadRequestError'
}
/** 401: no key, a malformed Authorization header, or a key that is unknown, revoked or of another environment. */
export class AuthenticationError extends PetstoreError {
  override name = 'AuthenticationError'
}
/** 403: the key may not do this: its account is suspended by the operator (`code` account_suspended). Not retried. */
export class PermissionDeniedError extends PetstoreError {
  override name = 'PermissionDeniedError'
}
/**
 * 403 `insufficient_scope`: a restricted key without the scope this operation needs (RFC 6750 §3.1). `scope` is the
 * one the answer's `WWW-Authenticate: Bearer error="insufficient_scope", scope="pets:write"` names. Never retried:
 * use a key that has the scope.
 */
export class InsufficientScopeError extends PermissionDeniedError {
  override name = 'InsufficientScopeError'
  /** The scope(s) the operation needs, as the service named them (space-separated); undefined when not named. */
  readonly scope: string | undefined

  constructor(
    message: string,
    status: number,
    code: string | undefined,
    requestId: string | undefined,
    headers: Headers,
  ) {
    super(message, status, code, requestId, headers)
    this.scope = bearerParameter(headers.get('www-authenticate'), 'scope')
  }
}
/** 404: no such pet, order or message in your account (or no such path). */
export class NotFoundError extends PetstoreError {
  override name = 'NotFoundError'
}
/** 409: a request with the same Idempotency-Key is still running (retried until `maxRetries` is used up). */
export class ConflictError extends PetstoreError {
  override name = 'ConflictError'
}
/** 422: the Idempotency-Key was already used with another body. */
export class UnprocessableEntityError extends PetstoreError {
  override name = 'UnprocessableEntityError'
}
/**
 * 429: over the quota (`rate_limit_exceeded`), or the key is temporarily banned (`temporarily_banned`). Also thrown
 * by the client itself, without sending, when its rate-limit gate would wait longer than 60 s or past `deadlineMs`:
 * then `retryAfter` is the time left until the gate opens, and the other fields are those of the answer that closed it.
 */
export class RateLimitError extends PetstoreError {
  override name = 'RateLimitError'
  /** True for `temporarily_banned`: every request until the ban ends is refused (and never retried). */
  readonly banned: boolean

  constructor(
    message: string,
    status: number,
    code: string | undefined,
    requestId: string | undefined,
    headers: Headers,
    options?: { retryAfter?: number },
  ) {
    super(message, status, code, requestId, headers, options)
    this.banned = code === 'temporarily_banned'
  }
}
/** 500 and above: a failure on the service's side (retried up to `maxRetries` for 500, 502, 503, 504). */
export class InternalServerError extends PetstoreError {
  override name = 'InternalServerError'
}
/** No answer came: the connection was refused, reset or dropped before the answer was read. */
export class ConnectionError extends PetstoreError {
  override name = 'ConnectionError'
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, undefined, undefined, undefined, new Headers(), options)
  }
}
/**
 * No answer came within `timeoutMs` (the whole attempt: connecting, sending, and reading the body), or by `deadlineMs`.
 */
export class TimeoutError extends ConnectionError {
  override name = 'TimeoutError'
}

type ErrorClass = new (
  message: string,
  status: number,
  code: string | undefined,
  requestId: string | undefined,
  headers: Headers,
) => PetstoreError

// 405, 410 (`operation_sunset`), 413, 431 and any other status keep the base class: `status` and `code` tell
// them apart, and none of them is something a caller handles differently by catching a class.
const BY_STATUS: Record<number, ErrorClass> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
}

/** The error for a non-2xx answer, from its status, headers and (possibly non-JSON) body. */
export function errorFromResponse(status: number, headers: Headers, body: unknown): PetstoreError {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {}
  const code = typeof fields.code === 'string' ? fields.code : undefined
  const message = typeof fields.message === 'string' ? fields.message : `HTTP ${status} without an error body`
  const scopeMissing =
    status === 403 &&
    (code === 'insufficient_scope' ||
      bearerParameter(headers.get('www-authenticate'), 'error') === 'insufficient_scope')
  const Class = scopeMissing
    ? InsufficientScopeError
    : (BY_STATUS[status] ?? (status >= 500 ? InternalServerError : PetstoreError))
  return new Class(message, status, code, headers.get('x-request-id') ?? undefined, headers)
}

/** Retry-After in seconds: delay-seconds, or an HTTP-date turned into the seconds from now (at least 0). */
function retryAfterSeconds(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get('retry-after')?.trim()
  if (!value) return undefined
  if (/^\d+$/.test(value)) return Number(value)
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000))
}

/** A parameter of a `WWW-Authenticate: Bearer a="…", b=token` challenge (RFC 6750 §3), unquoted. */
function bearerParameter(challenge: string | null, name: string): string | undefined {
  if (!challenge || !/^\s*bearer\b/i.test(challenge)) return undefined
  for (const match of challenge.matchAll(/([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]+))/g)) {
    if (match[1]!.toLowerCase() === name) return match[2] === undefined ? match[3] : match[2].replace(/\\(.)/g, '$1')
  }
  return undefined
}
