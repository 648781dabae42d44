// Errors that mean "the database cannot serve right now" rather than "this request is wrong" or "a bug":
// the client gets 503 with Retry-After and can try again; anything else stays a 500.

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
])
// SQLSTATE: 08 connection exception, 57P0x shutdown / cannot connect now, 53 insufficient resources.
const PG_UNAVAILABLE = /^(08|57P0|53)/
const SQLITE_UNAVAILABLE = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_CANTOPEN'])
// 'timeout expired' is pg's Client giving up on a connection it could not open in its connectionTimeoutMillis.
const MESSAGES = new RegExp(
  [
    'timeout exceeded when trying to connect',
    'timeout expired',
    'Connection terminated',
    'Query read timeout',
    'connection (is )?closed',
    'Client has encountered a connection error',
    'Client was closed',
    'Cannot use a pool after calling end',
  ].join('|'),
  'i',
)

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string') {
    if (
      NETWORK_CODES.has(code) ||
      SQLITE_UNAVAILABLE.has(code.split('_').slice(0, 2).join('_')) ||
      (/^[0-9A-Z]{5}$/.test(code) && PG_UNAVAILABLE.test(code))
    )
      return true
  }
  if (MESSAGES.test(error.message)) return true
  return error.cause !== undefined && error.cause !== error && isDatabaseUnavailable(error.cause)
}
