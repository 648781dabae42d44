// What every listener of the service shares: Fastify settings, the one error shape, the JSON body parser,
// request ids, one log line per request, per-address limiting of unauthenticated traffic, 405s, and responses
// written at the end of their event-loop turn.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify from 'fastify'
import type { DestinationStream } from 'pino'
import type { Config } from '../config.js'
import type { RateLimiter } from '../limits/rate-limiter.js'
import { createAddressLimitHook } from '../limits/rate-limit.hooks.js'
import { clientErrorHandler, frameworkErrorHandler, installErrorHandling } from './error-handler.js'
import { registerJsonBodyParser } from './json-body.js'
import { collectRoutes, registerMethodNotAllowed } from './method-not-allowed.js'
import { refuseRepeatedQueryParameters } from './query-guard.js'
import { requestIdFrom } from './request-id.js'
import { RequestLogController } from './request-log.js'
import type { SendBatcher } from './send-batching.js'
import { buildValidatorCompiler } from './validation.js'

export const BODY_LIMIT_BYTES = 16 * 1024

/** The service's pino options: the configured level, the Authorization header never written. */
export function loggerOptions(config: Config, stream?: DestinationStream): Record<string, unknown> {
  return { level: config.logLevel, redact: ['req.headers.authorization'], ...(stream ? { stream } : {}) }
}

export function createBaseApp(input: {
  config: Config
  limiter: RateLimiter
  /** Holds responses until the end of their event-loop turn (shared by every listener of the process). */
  sendBatcher: SendBatcher
  /** Paths starting with this get 405 answers for methods they lack. */
  apiPrefix: string
  /** Largest request body read; larger ones get 413. */
  bodyLimit?: number
  logger?: boolean | Record<string, unknown>
}) {
  const app = Fastify({
    logger: input.logger ?? loggerOptions(input.config),
    logController: new RequestLogController(),
    genReqId: requestIdFrom,
    bodyLimit: input.bodyLimit ?? BODY_LIMIT_BYTES,
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    // While closing, a request that still arrives on an open connection is served (with `Connection: close`):
    // Fastify's own 503 for it would not be our Error body.
    return503OnClosing: false,
    // Explicit server timeouts: a slow client cannot hold a request open forever.
    requestTimeout: 30_000,
    keepAliveTimeout: 72_000,
    // Our own validator factory (see http/validation.ts); Fastify's types want Ajv's compile signature.
    schemaController: { compilersFactory: { buildValidator: buildValidatorCompiler as never } },
  }).withTypeProvider<TypeBoxTypeProvider>()

  // Closing: connections that go idle later (their request was in flight when close began) would otherwise be
  // kept open for the whole keep-alive timeout and hold the shutdown past its grace period. Node reads this
  // value whenever a response ends; idle connections are closed about a second after their last answer.
  app.addHook('preClose', async () => {
    app.server.keepAliveTimeout = 1
  })
  installErrorHandling(app)
  registerJsonBodyParser(app)
  const routes = collectRoutes(app, input.apiPrefix)
  const limitByAddress = createAddressLimitHook(input.limiter)
  app.addHook('onRequest', async function identifyAndLimit(request, reply) {
    reply.header('x-request-id', request.id)
    await limitByAddress(request, reply)
  })
  app.addHook('preValidation', refuseRepeatedQueryParameters)
  app.addHook('onSend', input.sendBatcher.onSend)

  return {
    app,
    /** Call once every route is registered. */
    finish: () => registerMethodNotAllowed(app, routes),
  }
}
