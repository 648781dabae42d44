// Fastify answers an existing path with the wrong method as "not found". We collect every route as it is
// registered and, once all are in, register the missing methods of each path to answer 405 with `Allow`.
import type { FastifyInstance } from 'fastify'
import { isPreflight } from './cors.js'
import { ApiError } from './errors.js'
import { sendError } from './error-handler.js'

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const

/** Collects the routes whose path starts with `prefix` (the API; the docs UI keeps Fastify's own routing). */
export function collectRoutes(app: FastifyInstance, prefix: string): Map<string, Set<string>> {
  const routes = new Map<string, Set<string>>()
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(prefix)) return
    const methods = routes.get(route.url) ?? new Set<string>()
    for (const m of [route.method].flat()) methods.add(m.toUpperCase())
    routes.set(route.url, methods)
  })
  return routes
}

/** Call after every other route is registered. */
export function registerMethodNotAllowed(app: FastifyInstance, routes: Map<string, Set<string>>): void {
  for (const [url, methods] of [...routes]) {
    if (methods.has('GET')) methods.add('HEAD')
    const missing = METHODS.filter((m) => !methods.has(m))
    if (missing.length === 0) continue
    const allow = METHODS.filter((m) => methods.has(m)).join(', ')
    app.route({
      method: missing,
      url,
      schema: { hide: true },
      config: { rateLimit: 'address' },
      // Returns the reply: an async handler that resolves to undefined makes Fastify send a second time while
      // the first response waits in the send batcher, and that second write was logged and metered as a 500.
      handler: async (request, reply) => {
        // A CORS preflight (OPTIONS from an allowed origin) is answered here, after the address limiter.
        if (isPreflight(request)) return reply.code(204).header('content-length', '0').send()
        return sendError(reply, new ApiError('method_not_allowed', `${request.method} is not allowed on ${request.url.split('?')[0]}; allowed: ${allow}.`, { allow }))
      },
    })
  }
}
