// Fastify answers an existing path with the wrong method as "not found", and knows only some methods (others,
// TRACE or PROPFIND say, go straight to its 404). We collect every route as it is registered and, once all are
// in, make every method Node's HTTP parser accepts known to Fastify and register the ones each path lacks to
// answer 405 with `Allow`.
import { METHODS as NODE_METHODS, ServerResponse, type IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isPreflight } from './cors.js'
import { ApiError } from '../contract/errors.js'
import { sendError } from '../contract/error-handler.js'

/** The methods an API path may have, in the order `Allow` lists them. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const

/**
 * Collects the routes whose path starts with `prefix` (the API; the docs UI keeps Fastify's own routing); none
 * without one.
 */
export function collectRoutes(app: FastifyInstance, prefix: string | undefined): Map<string, Set<string>> {
  const routes = new Map<string, Set<string>>()
  if (prefix === undefined) return routes
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(prefix)) return
    const methods = routes.get(route.url) ?? new Set<string>()
    for (const m of [route.method].flat()) methods.add(m.toUpperCase())
    routes.set(route.url, methods)
  })
  return routes
}

/**
 * Node hands a CONNECT request to the server's `connect` listeners (and closes the connection when there is
 * none) instead of answering it. It is routed like any other request here, on a response of its own, and the
 * connection is closed after the answer (nothing is tunnelled).
 */
function routeConnectRequests(app: FastifyInstance): void {
  app.server.on('connect', (req: IncomingMessage, socket: Socket) => {
    const res = new ServerResponse(req)
    res.shouldKeepAlive = false
    res.assignSocket(socket)
    res.on('finish', () => socket.destroySoon())
    socket.on('error', () => socket.destroy())
    app.routing(req, res)
  })
}

/** Call after every other route is registered. */
export function registerMethodNotAllowed(app: FastifyInstance, routes: Map<string, Set<string>>): void {
  // Without a body as far as Fastify is concerned: a 405 is answered before any body would be read, and QUERY
  // (which Fastify refuses with its own 400 when it has no Content-Type) is not a method of any route of ours.
  const known = new Set(app.supportedMethods)
  for (const method of NODE_METHODS) {
    if (!known.has(method)) app.addHttpMethod(method)
  }
  if (![...routes.values()].some((methods) => methods.has('QUERY')))
    app.addHttpMethod('QUERY', { overrideExisting: true })
  routeConnectRequests(app)

  for (const [url, methods] of [...routes]) {
    if (methods.has('GET')) methods.add('HEAD')
    const missing = NODE_METHODS.filter((m) => !methods.has(m))
    if (missing.length === 0) continue
    const allow = METHODS.filter((m) => methods.has(m)).join(', ')
    // Answered in the route's first hook, so before Fastify reads or checks a body (a QUERY or DELETE with an
    // unsupported Content-Type is still a 405). Returns the reply: a hook or handler that resolves to undefined
    // after sending makes Fastify send a second time while the first response waits in the send batcher.
    const answer = async (request: FastifyRequest, reply: FastifyReply) => {
      // A CORS preflight (OPTIONS from an allowed origin) is answered here, after the address limiter.
      if (isPreflight(request)) return reply.code(204).header('content-length', '0').send()
      return sendError(
        reply,
        new ApiError(
          'method_not_allowed',
          `${request.method} is not allowed on ${request.url.split('?')[0]}; allowed: ${allow}.`,
          { allow },
        ),
      )
    }
    app.route({
      method: missing,
      url,
      schema: { hide: true },
      config: { rateLimit: 'address' },
      onRequest: answer,
      handler: answer,
    })
  }
}
