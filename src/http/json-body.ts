// The one JSON body parser. It keeps integers exact (beyond 2^53 they become bigint rather than being
// rounded, so int64 fields round-trip), refuses duplicate keys, and stores `__proto__` as a plain key.
import type { FastifyInstance, FastifyReply, FastifyRequest, RequestPayload } from 'fastify'
import { isSafeNumber, parse } from 'lossless-json'
import { ApiError } from './errors.js'

const PLAIN_INTEGER = /^-?\d+$/

function parseNumber(text: string): number | bigint {
  return PLAIN_INTEGER.test(text) && !isSafeNumber(text) ? BigInt(text) : Number(text)
}

/** `application/json`, optionally with `charset=utf-8`; anything else is refused. */
export function isJsonContentType(header: string | undefined): boolean {
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
    try {
      done(null, parse(text, null, parseNumber))
    } catch (error) {
      done(new ApiError('invalid_json', `The request body is not valid JSON: ${(error as Error).message}.`), undefined)
    }
  })
}

/**
 * Route hook for operations with a body: the spec requires `Content-Type: application/json` (400, not 415).
 * A callback hook: it has nothing to wait for, and an async one costs a promise on every request.
 */
export function requireJsonContentType(request: FastifyRequest, _reply: FastifyReply, payload: RequestPayload, done: (err: Error | null, payload?: RequestPayload) => void): void {
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
