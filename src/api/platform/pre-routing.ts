// Refusals made before a request reaches a route: Node's HTTP parser (malformed HTTP, headers too large, a
// request that does not arrive in time), Fastify's router (a URL that cannot be decoded), a request without
// `Host` or with two, and an `Expect` we do not support. Node and Fastify answer these themselves with a bare
// response (or not at all: two Hosts); here each one gets the Error body, an X-Request-Id and the limit headers
// of the client's address, and counts against that address like any other request without a key (so the headers
// say what really holds; an address that is out of requests gets the 429 instead).
import { randomUUID } from 'node:crypto'
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { RateLimiter } from '../../modules/limits/rate-limiter.js'
import { refusalError } from '../contract/domain-errors.js'
import { ApiError } from '../contract/errors.js'
import { clientError, sendError } from '../contract/error-handler.js'

/** What Node's parser reports, as our error. */
function parserError(error: Error & { code?: string }): ApiError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('headers_too_large', 'The request headers are too large.')
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError(
        'request_timeout',
        'The request did not arrive in time; send the whole request (headers and body) at once.',
      )
    default:
      return new ApiError('bad_request', 'The request is not valid HTTP.')
  }
}

/** The limiter's verdict on one more request of the address: its headers, and a 429 if it is out of requests. */
async function countAgainstAddress(limiter: RateLimiter, address: string | undefined, refusal: ApiError) {
  try {
    const outcome = await limiter.forAddress(address ?? 'unknown')
    return { headers: outcome.headers, error: outcome.refusal ? refusalError(outcome.refusal) : refusal }
  } catch {
    // The limiter's store failing must not leave the socket unanswered.
    return { headers: {}, error: refusal }
  }
}

type HttpSocket = Socket & {
  _httpMessage?: ServerResponse | null
  parser?: { incoming?: IncomingMessage | null } | null
}

/**
 * Whether the request this error is about already has (part of) an answer: its response has begun, or, for a
 * request whose body was still arriving, the route answered without waiting for the body (a 401, say). Then
 * a second response would be read as the answer to the next request; the socket is only closed.
 */
function answered(socket: HttpSocket): boolean {
  const inFlight = socket._httpMessage
  if (inFlight) return inFlight.headersSent
  const receiving = socket.parser?.incoming
  return receiving != null && !receiving.complete
}

/**
 * Node's `clientError`: answers on the raw socket (there is no request object), then closes it. `always`: headers
 * every answer of the listener carries (Strict-Transport-Security).
 */
export function createClientErrorHandler(limiter: RateLimiter, always: Record<string, string> = {}) {
  return function clientErrorHandler(
    this: FastifyInstance,
    error: Error & { code?: string },
    socket: HttpSocket,
  ): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return
    const refusal = parserError(error)
    void countAgainstAddress(limiter, socket.remoteAddress, refusal).then(({ headers, error: answer }) => {
      if (socket.writable && !answered(socket)) {
        const body = JSON.stringify(answer.toBody())
        const lines = Object.entries({ ...always, ...headers, ...answer.headers, 'x-request-id': randomUUID() }).map(
          ([name, value]) => `${name}: ${value}\r\n`,
        )
        socket.write(
          `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\nconnection: close\r\ncontent-type: ` +
            `application/json; charset=utf-8\r\n` +
            `content-length: ${Buffer.byteLength(body)}\r\n${lines.join('')}\r\n${body}`,
        )
      }
      // The parser's code says what was wrong; its stack (Node's own frames) says nothing, once per bad request.
      this.log.info(
        { status: answer.status, errorCode: answer.code, reason: error.code ?? error.message },
        'request refused before routing',
      )
      socket.destroySoon()
    })
  }
}

/** Fastify's `frameworkErrors` (e.g. a URL that cannot be decoded): no hook has run for this request. */
export function createFrameworkErrorHandler(limiter: RateLimiter, always: Record<string, string> = {}) {
  return function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
    reply.headers(always).header('x-request-id', request.id)
    const refusal =
      clientError(error, request.routeOptions.bodyLimit) ??
      new ApiError('bad_request', 'The request could not be read.')
    void countAgainstAddress(limiter, request.ip, refusal).then(({ headers, error: answer }) =>
      sendError(reply.headers(headers), answer),
    )
  }
}

const UNSUPPORTED_EXPECT = Symbol('unsupported Expect')

/** Whether the request has more than one Host line (Node keeps only the first in `headers`). */
function repeatsHost(raw: IncomingMessage): boolean {
  const lines = raw.rawHeaders
  let seen = false
  for (let i = 0; i < lines.length; i += 2) {
    const name = lines[i]!
    if (name.length !== 4 || name.toLowerCase() !== 'host') continue
    if (seen) return true
    seen = true
  }
  return false
}

/**
 * A request Node lets through but that is refused before routing: HTTP/1.1 without `Host` (RFC 9112 §3.2;
 * Node's own check answers with an empty body, so it is switched off), any request with two (the same section:
 * proxies and this service could each take another one for the target), or an `Expect` other than `100-continue`.
 */
export function preRoutingRefusal(raw: IncomingMessage): ApiError | undefined {
  if (raw.headers.host === undefined) {
    if (raw.httpVersionMajor === 1 && raw.httpVersionMinor === 1)
      return new ApiError('bad_request', 'An HTTP/1.1 request must carry a Host header.')
  } else if (repeatsHost(raw)) {
    return new ApiError('bad_request', 'A request must carry one Host header, not several.')
  }
  if ((raw as IncomingMessage & { [UNSUPPORTED_EXPECT]?: true })[UNSUPPORTED_EXPECT]) {
    return new ApiError(
      'expectation_failed',
      `Expect: ${String(raw.headers.expect)} is not supported; only 100-continue is.`,
      { connection: 'close' },
    )
  }
  return undefined
}

/** Node answers an unsupported `Expect` with a bare 417 unless someone listens: route it, marked, instead. */
export function routeUnsupportedExpectations(app: FastifyInstance): void {
  app.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    ;(req as IncomingMessage & { [UNSUPPORTED_EXPECT]?: true })[UNSUPPORTED_EXPECT] = true
    app.routing(req, res)
  })
}
