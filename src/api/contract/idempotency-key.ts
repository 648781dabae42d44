// The Idempotency-Key header (draft-ietf-httpapi-idempotency-key-header): a structured-field string, so
// clients send it quoted ("…"); a bare token is accepted too. 1–255 printable ASCII characters.
import { hash } from 'node:crypto'
import { stringify } from 'lossless-json'
import { ApiError } from './errors.js'

const QUOTED = /^"((?:[\x20\x21\x23-\x5B\x5D-\x7E]|\\["\\])*)"$/
// A bare key may not contain a quote: `abc"` or `a"b` is a quoted string gone wrong, not a key.
const BARE = /^[\x21\x23-\x7E]+$/
const IDEMPOTENCY_KEY_MAX = 255
export const IDEMPOTENCY_KEY_MESSAGE =
  'Idempotency-Key must be 1 to 255 printable ASCII characters, e.g. Idempotency-Key: ' +
  '"8e03978e-40d5-43e8-bc93-6894a57f9324".'

/**
 * The same rule as one JSON Schema pattern, for the documented header: a quoted string of 1–255 characters (each
 * printable ASCII, `\"` and `\\` escaped) or a bare key of 1–255 printable characters without a quote.
 */
export const IDEMPOTENCY_KEY_PATTERN =
  `^(?:"(?:[\\x20\\x21\\x23-\\x5B\\x5D-\\x7E]|\\\\["\\\\]){1,` +
  `${IDEMPOTENCY_KEY_MAX}}"|[\\x21\\x23-\\x7E]{1,${IDEMPOTENCY_KEY_MAX}})$`
/** Longest header that can hold a valid key: quotes around 255 escaped characters. */
export const IDEMPOTENCY_KEY_HEADER_MAX = 2 + 2 * IDEMPOTENCY_KEY_MAX

/** The key, undefined when the header is absent, or a 400 when it is malformed. */
export function parseIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined
  const raw = Array.isArray(header) ? undefined : header.trim()
  const quoted = raw === undefined ? null : QUOTED.exec(raw)
  const key = quoted ? quoted[1]!.replace(/\\(["\\])/g, '$1') : raw !== undefined && BARE.test(raw) ? raw : undefined
  if (key === undefined || key.length < 1 || key.length > IDEMPOTENCY_KEY_MAX) {
    throw new ApiError('invalid_idempotency_key', IDEMPOTENCY_KEY_MESSAGE)
  }
  return key
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical)
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    )
  }
  return value
}

/** Same JSON body ⇔ same fingerprint, whatever the key order or white space of the request. */
export function fingerprintOf(body: unknown): string {
  return hash('sha256', stringify(canonical(body)) ?? '', 'hex')
}
