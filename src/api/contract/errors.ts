// The closed list of error codes the API answers with, each bound to one HTTP status.
// Every non-2xx response is `{code, message, status}` built from this list;
// docs/integrators/api.md documents each code.

export const ERROR_CODES = {
  bad_request: {
    status: 400,
    doc:
      'The request could not be read (for example a malformed URL, malformed HTTP, HTTP/1.1 without `Host`, or ' +
      'two `Host` headers).',
  },
  invalid_parameter: {
    status: 400,
    doc: 'A query or path parameter is missing, repeated, unknown or out of range; the message names it.',
  },
  invalid_body: {
    status: 400,
    doc:
      'The JSON body is not an object, misses a required field, has an unknown field or a bad value; the message ' +
      'names the field.',
  },
  invalid_json: {
    status: 400,
    doc: 'The body is empty or not valid JSON (arrays or objects nested deeper than 64 levels included).',
  },
  invalid_content_type: {
    status: 400,
    doc: 'A body was sent without `Content-Type: application/json` (or with another media type).',
  },
  invalid_cursor: {
    status: 400,
    doc: 'The `cursor` was not issued by this service, was altered, or belongs to another filter or account.',
  },
  invalid_idempotency_key: {
    status: 400,
    doc: 'The `Idempotency-Key` header is not 1–255 printable ASCII characters (optionally as a quoted string).',
  },
  missing_api_key: { status: 401, doc: 'No `Authorization` header was sent.' },
  invalid_authorization_header: {
    status: 401,
    doc: 'The `Authorization` header is not `Bearer <API_KEY>` (another scheme, or a malformed value).',
  },
  invalid_api_key: {
    status: 401,
    doc:
      'The key is unknown, revoked, expired, rolled and past its grace period, or of another environment (a ' +
      '`ps_test_` key in production); the message says which, never the key.',
  },
  account_suspended: {
    status: 403,
    doc:
      'The key is valid but its account is suspended by the operator of the service; every key of it is refused ' +
      'until the account is reactivated. Contact the operator.',
  },
  insufficient_scope: {
    status: 403,
    doc:
      'The key is valid but lacks the scope the operation needs (the message and the `WWW-Authenticate` challenge ' +
      'name it, e.g. `scope="pets:write"`). Counted against the quota; nothing was changed. A key\'s scopes cannot ' +
      'be widened: create a key with the scope.',
  },
  not_found: { status: 404, doc: 'No such path.' },
  pet_not_found: { status: 404, doc: 'No pet with that id exists in your account.' },
  order_not_found: {
    status: 404,
    doc: "No order with that id exists in your account (missing, another account's, or cancelled).",
  },
  message_not_found: { status: 404, doc: 'No message with that id exists in your account (messages interface).' },
  webhook_endpoint_not_found: { status: 404, doc: 'No webhook endpoint with that id exists in your account.' },
  event_not_found: {
    status: 404,
    doc: 'No event with that id exists in your account (events are kept `WEBHOOK_RETENTION_DAYS`, 30 by default).',
  },
  webhook_endpoint_disabled: {
    status: 409,
    doc: 'The webhook endpoint is disabled, so nothing is sent to it; enable it first (`PATCH` with `enabled: true`).',
  },
  webhook_endpoint_limit_reached: {
    status: 409,
    doc: 'The account already has 10 webhook endpoints; delete one (or change one) instead.',
  },
  idempotency_key_in_progress: {
    status: 409,
    doc: 'A request with this `Idempotency-Key` is still being processed; retry after it finishes.',
  },
  method_not_allowed: {
    status: 405,
    doc: 'The path exists but not with this method; the `Allow` header lists the methods it has.',
  },
  request_timeout: {
    status: 408,
    doc: "The request (headers and body) did not arrive within the server's request timeout (`REQUEST_TIMEOUT_MS`).",
  },
  operation_sunset: {
    status: 410,
    doc: 'The operation was removed at its sunset date (`GET /v1/pets/{petId}`); use its replacement.',
  },
  idempotency_key_reused: {
    status: 422,
    doc: 'This `Idempotency-Key` was already used with a different request body (within 24 hours).',
  },
  payload_too_large: {
    status: 413,
    doc: 'The body is larger than the limit: 16 KiB on the pet store, 64 KiB on the messages interface.',
  },
  unsupported_content_encoding: {
    status: 415,
    doc: 'The body was sent with a `Content-Encoding` other than `identity` (e.g. gzip); send it uncompressed.',
  },
  expectation_failed: { status: 417, doc: 'The `Expect` header asks for something other than `100-continue`.' },
  rate_limit_exceeded: {
    status: 429,
    doc: 'The per-minute or per-day quota is used up (the message names the window); wait `Retry-After` seconds.',
  },
  temporarily_banned: {
    status: 429,
    doc: 'The key kept sending requests while rate limited and is banned for a while; wait `Retry-After` seconds.',
  },
  headers_too_large: { status: 431, doc: 'The request headers are too large to be read.' },
  internal_error: {
    status: 500,
    doc: 'An unexpected failure on our side; nothing was leaked. Retry later and quote the `X-Request-Id`.',
  },
  service_unavailable: {
    status: 503,
    doc:
      'The database is unreachable or overloaded for now. Retry after `Retry-After` seconds (with the same ' +
      '`Idempotency-Key` for a POST).',
  },
} as const

export type ErrorCode = keyof typeof ERROR_CODES

interface ErrorBody {
  code: ErrorCode
  message: string
  status: number
}

/** An error we mean to show to the client, as is. Anything else becomes a 500 `internal_error`. */
export class ApiError extends Error {
  readonly status: number

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    // An answer to the client, not a fault: a stack trace would be capture cost on every 401 and 429 and is
    // never shown or logged.
    const stackTraceLimit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
    super(message)
    Error.stackTraceLimit = stackTraceLimit
    this.name = 'ApiError'
    this.status = ERROR_CODES[code].status
  }

  toBody(): ErrorBody {
    return { code: this.code, message: this.message, status: this.status }
  }
}
