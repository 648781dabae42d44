// Browsers calling the API from other origins (CORS_ORIGINS), with @fastify/cors. Only the API paths of a
// listener (`/v1/…`, `/messages…`) answer CORS; operations, docs and admin endpoints never do. A preflight is
// answered without a key (a browser sends none), after it is counted against the client address like every
// request without a key, so it carries the limit headers too. Errors (401, 429 …) carry
// Access-Control-Allow-Origin as well: the CORS hook runs first, so a browser lets the page read them.
import cors from '@fastify/cors'
import type { FastifyInstance, FastifyRequest } from 'fastify'

/**
 * Request headers a browser may send: the key, the JSON body, safe retries (with @petstore/sdk's retry count), and a
 * request id to trace.
 */
const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'X-Request-Id',
  'X-Petstore-Retry-Count',
]
/** Response headers a page may read (beyond the CORS-safelisted ones). */
const CORS_EXPOSED_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Link',
  'Location',
  'Deprecation',
  'Sunset',
  'X-Request-Id',
  'Idempotent-Replayed',
]
declare module 'fastify' {
  interface FastifyContextConfig {
    /** `false`: no CORS on this route (read by @fastify/cors). */
    cors?: false
  }
}

/** How long a browser may cache a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE = 600

/** Registers CORS for the routes under `apiPrefix`; does nothing without origins. Call before any other hook. */
export function registerCors(
  app: FastifyInstance,
  { origins, apiPrefix }: { origins: readonly string[] | undefined; apiPrefix: string },
): void {
  if (!origins || origins.length === 0) return
  const allowed = new Set(origins)
  app.addHook('onRoute', (route) => {
    // @fastify/cors's catch-all OPTIONS route: limited per address like an unknown path.
    if (route.url === '*' || route.url === '/*') route.config = { ...route.config, rateLimit: 'address' }
    else if (!route.url.startsWith(apiPrefix)) route.config = { ...route.config, cors: false }
  })
  void app.register(cors, {
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin) ? origin : false),
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE,
    // The preflight goes on through the address limiter to its route, whose 405 handler answers it (isPreflight).
    preflightContinue: true,
    // An OPTIONS without Access-Control-Request-Method is not a preflight; the plugin would answer it in plain text.
    strictPreflight: false,
  })
}

/** A CORS preflight from an allowed origin (the 405 handler answers it 204 instead of 405). */
export function isPreflight(request: FastifyRequest): boolean {
  return (
    (request as FastifyRequest & { corsPreflightEnabled?: boolean }).corsPreflightEnabled === true &&
    request.headers['access-control-request-method'] !== undefined
  )
}
