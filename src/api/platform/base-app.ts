// What every listener of the service shares: Fastify settings, the one error shape, the JSON body parser,
// Strict-Transport-Security, request ids, one log line per request, per-address limiting of unauthenticated
// traffic, 405s, and responses written at the end of their event-loop turn.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify from 'fastify'
import type { DestinationStream } from 'pino'
import type { Config } from '../../kernel/config.js'
import type { RateLimiter } from '../../modules/limits/rate-limiter.js'
import { createAddressLimitHook } from '../guard/rate-limit.hooks.js'
import { registerCors } from './cors.js'
import { installErrorHandling } from '../contract/error-handler.js'
import { transportSecurityHeaders } from './hsts.js'
import { registerJsonBodyParser } from './json-body.js'
import { collectRoutes, registerMethodNotAllowed } from './method-not-allowed.js'
import {
  createClientErrorHandler,
  createFrameworkErrorHandler,
  preRoutingRefusal,
  routeUnsupportedExpectations,
} from './pre-routing.js'
import { refuseRepeatedQueryParameters } from './query-guard.js'
import { requestIdFrom } from './request-id.js'
import { RequestLogController } from './request-log.js'
import type { SendBatcher } from './send-batching.js'
import { buildSerializerCompiler } from './serialization.js'
import { buildValidatorCompiler } from './validation.js'
import type { OutageLog } from '../../ops/outage-log.js'

/** How long kept-alive connections idle at shutdown stay open for a request already on its way. */
const IDLE_DRAIN_MS = 500
export const BODY_LIMIT_BYTES = 16 * 1024

/** The service's pino options: the configured level, the Authorization header never written. */
export function loggerOptions(config: Config, stream?: DestinationStream): Record<string, unknown> {
  return { level: config.logLevel, redact: ['req.headers.authorization'], ...(stream ? { stream } : {}) }
}

/** A hop count as the trust function proxy-addr makes of one (Fastify's types take no number). */
function trustProxyOption(
  setting: Config['trustProxy'],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof setting === 'number' ? (_address, hop) => hop < setting : setting
}

export function createBaseApp(input: {
  config: Config
  limiter: RateLimiter
  /** Holds responses until the end of their event-loop turn (shared by every listener of the process). */
  sendBatcher: SendBatcher
  /** Paths starting with this get 405 answers for methods they lack, and CORS; none on a listener without an API. */
  apiPrefix?: string
  /** Largest request body read; larger ones get 413. */
  bodyLimit?: number
  logger?: boolean | Record<string, unknown>
  /** The process's database outage (ops/outage-log.ts): requests refused by it are counted there, not logged each. */
  databaseOutage?: OutageLog
}) {
  const transportSecurity = transportSecurityHeaders(input.config)
  const app = Fastify({
    logger: input.logger ?? loggerOptions(input.config),
    logController: new RequestLogController(input.databaseOutage),
    genReqId: requestIdFrom,
    bodyLimit: input.bodyLimit ?? BODY_LIMIT_BYTES,
    // Fastify refuses a path parameter over 100 characters before routing, so the answer would miss what its
    // route sends (a deprecated operation's headers, the account's limits). The request line is bounded by Node's
    // header limit anyway; the route's own schema refuses a long parameter with a 400 naming it.
    routerOptions: { maxParamLength: 16 * 1024 },
    // Refusals before routing keep the Error body and the address's limit headers (http/pre-routing.ts).
    frameworkErrors: createFrameworkErrorHandler(input.limiter, transportSecurity),
    clientErrorHandler: createClientErrorHandler(input.limiter, transportSecurity),
    // While closing, a request that still arrives on an open connection is served (with `Connection: close`):
    // Fastify's own 503 for it would not be our Error body.
    return503OnClosing: false,
    // Who the client is (request.ip: per-address limits, logs, the /metrics guard): the connection's address, or
    // the one the trusted proxies put in X-Forwarded-For (TRUST_PROXY).
    trustProxy: trustProxyOption(input.config.trustProxy),
    // Explicit server timeouts: a slow client cannot hold a request open forever. Node checks them every
    // `connectionsCheckingInterval` (30 s by default, which would double the timeout); a slow request gets a 408.
    requestTimeout: input.config.requestTimeoutMs,
    keepAliveTimeout: 72_000,
    http: {
      headersTimeout: input.config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, input.config.requestTimeoutMs),
      // A request without Host is refused by us (preRoutingRefusal), with the Error body.
      requireHostHeader: false,
    },
    // Our own validator factory (see http/validation.ts); Fastify's types want Ajv's compile signature. Both
    // factories compile a schema once per process (http/serialization.ts says why).
    schemaController: {
      compilersFactory: {
        buildValidator: buildValidatorCompiler as never,
        buildSerializer: buildSerializerCompiler as never,
      },
    },
  }).withTypeProvider<TypeBoxTypeProvider>()

  // Closing (SIGTERM): requests already received are answered, with `Connection: close` (the send batcher adds
  // it, to responses it holds too), and those connections close after their answer; idle ones close after a
  // drain window (below), nothing new is accepted (Node's server.close). Before that, one more turn of the event loop:
  // requests whose bytes have already arrived are read, so they count as received (and answered) rather than sitting
  // unread in an idle connection that is then closed under them (the client would see a reset after sending).
  app.addHook('preClose', async () => {
    input.sendBatcher.closeConnections()
    // Belt and braces for a connection that goes idle later: Node reads this whenever a response ends.
    app.server.keepAliveTimeout = 1
    // A kept-alive connection idle at the signal may have its next request on the way (sent as the previous answer
    // arrived). server.close() stops accepting at once but would also close such connections at once, resetting
    // that request after the client sent it. They get a short drain window instead: a request arriving in it is
    // answered with `Connection: close`, the rest close when it ends.
    const closeIdle = app.server.closeIdleConnections.bind(app.server)
    app.server.closeIdleConnections = () => void setTimeout(closeIdle, IDLE_DRAIN_MS)
    await new Promise((resolve) => setImmediate(resolve))
    await new Promise((resolve) => setTimeout(resolve, 0))
  })
  installErrorHandling(app, input.databaseOutage)
  registerJsonBodyParser(app)
  const routes = collectRoutes(app, input.apiPrefix)
  const limitByAddress = createAddressLimitHook(input.limiter)
  routeUnsupportedExpectations(app)
  // Before any hook that can answer (a preflight, a 429): every answer carries it. No hook at all over http.
  if (Object.keys(transportSecurity).length > 0) {
    app.addHook('onRequest', (_request, reply, done) => {
      reply.headers(transportSecurity)
      done()
    })
  }
  // First, so that every answer of the API (errors and 429s included) carries the CORS headers.
  if (input.apiPrefix) registerCors(app, { origins: input.config.corsOrigins, apiPrefix: input.apiPrefix })
  app.addHook('onRequest', async function identifyAndLimit(request, reply) {
    reply.header('x-request-id', request.id)
    const refusal = preRoutingRefusal(request.raw)
    if (refusal === undefined) return limitByAddress(request, reply)
    await limitByAddress(request, reply, true)
    throw refusal
  })
  app.addHook('preValidation', refuseRepeatedQueryParameters)
  app.addHook('onSend', input.sendBatcher.onSend)

  return {
    app,
    /** Call once every route is registered. */
    finish: () => registerMethodNotAllowed(app, routes),
  }
}
