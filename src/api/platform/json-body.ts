// The one JSON body parser. It keeps integers exact (beyond 2^53 they become bigint rather than being
// rounded, so int64 fields round-trip), refuses duplicate keys and nesting deeper than MAX_JSON_DEPTH, and stores
// `__proto__` as a plain key.
import type { FastifyInstance, FastifyReply, FastifyRequest, RequestPayload } from 'fastify'
import { isSafeNumber, LosslessNumber, parse } from 'lossless-json'
import { ApiError } from '../contract/errors.js'

const PLAIN_INTEGER = /^-?\d+$/
const JSON_NUMBER = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/
/** Digits beyond which an integer is out of the int64 range anyway (int64 has 19). */
const MAX_INTEGER_DIGITS = 20

/**
 * The exact integer a JSON number's text stands for (`1.0`, `1e18`, `9223372036854775807.0`), or undefined when
 * its decimal value is not an integer (`1.5`, `4503599627370496.5`, `1e-400`), decided on the digits, never on a
 * rounded double. An integer with more digits than any int64 comes back as the double it rounds to (no BigInt of
 * a million digits for `1e1000000`): it is not a safe integer, so no integer schema accepts it.
 */
function exactInteger(text: string): number | bigint | undefined {
  const [, sign, whole, fraction = '', exponent = '0'] = JSON_NUMBER.exec(text)!
  let digits = (whole! + fraction).replace(/^0+/, '')
  if (digits === '') return 0
  let scale = Number(exponent) - fraction.length
  const trailingZeros = digits.length - digits.replace(/0+$/, '').length
  digits = digits.slice(0, digits.length - trailingZeros)
  scale += trailingZeros
  if (scale < 0) return undefined
  if (digits.length + scale > MAX_INTEGER_DIGITS) return Number(text)
  const n = BigInt(`${sign}${digits}${'0'.repeat(scale)}`)
  return Number.isSafeInteger(Number(n)) ? Number(n) : n
}

/**
 * Arrays and objects a body may nest (every request body of the API is one flat object). The parser recurses once
 * per level: without a limit a 16 KiB body of `[` ran it out of stack, answered with the engine's own words.
 */
export const MAX_JSON_DEPTH = 64

/** Whether `text` opens more than MAX_JSON_DEPTH arrays or objects at once; brackets inside strings are text. */
function nestedTooDeep(text: string): boolean {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // A string: skip to its closing quote, past escaped characters.
      for (i++; i < text.length; i++) {
        const inner = text.charCodeAt(i)
        if (inner === 0x5c) i++
        else if (inner === 0x22) break
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) return true
    } else if (c === 0x5d || c === 0x7d) {
      depth--
    }
  }
  return false
}

function parseNumber(text: string): unknown {
  if (PLAIN_INTEGER.test(text)) return isSafeNumber(text) ? Number(text) : BigInt(text)
  const integer = exactInteger(text)
  if (integer !== undefined) return integer
  // Not an integer. As a double it may look like one (4503599627370496.5 rounds to 4503599627370496): then keep
  // the exact text, which no integer or number schema accepts.
  const value = Number(text)
  return Number.isInteger(value) ? new LosslessNumber(text) : value
}

/** `application/json`, optionally with `charset=utf-8`; anything else is refused. */
function isJsonContentType(header: string | undefined): boolean {
  if (header === 'application/json') return true
  if (!header) return false
  const [type, ...params] = header.split(';').map((p) => p.trim().toLowerCase())
  if (type !== 'application/json') return false
  return params.every((p) => !p.startsWith('charset=') || p === 'charset=utf-8' || p === 'charset="utf-8"')
}

export function registerJsonBodyParser(app: FastifyInstance): void {
  // Only JSON is spoken; every other media type fails in Fastify and is mapped to invalid_content_type.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string
    if (text.trim() === '') {
      done(new ApiError('invalid_json', 'The request body is empty; send a JSON object.'), undefined)
      return
    }
    // Deeper needs more characters than levels: most bodies are not even scanned.
    if (text.length > MAX_JSON_DEPTH && nestedTooDeep(text)) {
      done(
        new ApiError(
          'invalid_json',
          `The request body is not valid JSON: it is nested deeper than ${MAX_JSON_DEPTH} levels.`,
        ),
        undefined,
      )
      return
    }
    try {
      done(null, parse(text, null, parseNumber))
    } catch (error) {
      done(new ApiError('invalid_json', `The request body is not valid JSON: ${(error as Error).message}.`), undefined)
    }
  })
}

/**
 * Route hook for operations with a body, before the type check: a body in a `Content-Encoding` we do not decode
 * (gzip, br …) is refused, never read as if it were plain (415: the encoding, not the media type, is unsupported).
 */
export function refuseEncodedBody(
  request: FastifyRequest,
  _reply: FastifyReply,
  payload: RequestPayload,
  done: (err: Error | null, payload?: RequestPayload) => void,
): void {
  const encoding = request.headers['content-encoding']
  if (encoding === undefined || encoding.trim().toLowerCase() === 'identity' || encoding.trim() === '')
    return done(null, payload)
  done(
    new ApiError(
      'unsupported_content_encoding',
      'The body is sent with a Content-Encoding this service does not decode; send it without one (or `identity`).',
    ),
  )
}

/**
 * Route hook for operations with a body: the spec requires `Content-Type: application/json` (400, not 415).
 * A callback hook: it has nothing to wait for, and an async one costs a promise on every request.
 */
export function requireJsonContentType(
  request: FastifyRequest,
  _reply: FastifyReply,
  payload: RequestPayload,
  done: (err: Error | null, payload?: RequestPayload) => void,
): void {
  if (isJsonContentType(request.headers['content-type'])) return done(null, payload)
  done(new ApiError('invalid_content_type', 'Send the body as JSON with the header `Content-Type: application/json`.'))
}

/**
 * Sends JSON text that is already the response body (made by the database), past the route's serializer: Fastify
 * sends a string as it is when the content type is JSON. The route's response schema still documents the body.
 */
export function sendJsonText(reply: FastifyReply, json: string): FastifyReply {
  return reply.header('content-type', 'application/json; charset=utf-8').send(json)
}
