// Operational endpoints, outside /v1 and without an API key: liveness, readiness, metrics.
import { timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { sql } from 'kysely'
import { ApiError } from '../http/errors.js'
import type { Services } from '../services.js'

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/

function checkMetricsAccess(request: FastifyRequest, token: string | undefined): void {
  if (token === undefined) {
    if (!LOOPBACK.test(request.ip)) throw new ApiError('not_found', `No route for GET /metrics.`)
    return
  }
  const presented = Buffer.from(/^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '')
  const expected = Buffer.from(token)
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
    // Every 401 names the scheme it wants (RFC 9110 §11.6.1), as the API's own 401s do.
    throw new ApiError('invalid_api_key', 'GET /metrics needs the METRICS_TOKEN as a bearer token.', { 'www-authenticate': 'Bearer realm="metrics"' })
  }
}

async function check(name: string, probe: () => Promise<unknown>): Promise<[string, string]> {
  try {
    await Promise.race([probe(), new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), 2_000).unref())])
    return [name, 'ok']
  } catch (error) {
    return [name, `unavailable (${error instanceof Error ? error.message : String(error)})`]
  }
}

const DEGRADED = 'degraded'

/**
 * Redis down is not a reason to leave the load balancer: the fallback limiter serves (per process, at a share of
 * each quota). Taking every instance out because the shared counter store is down would turn a degraded state
 * into an outage. `degraded` says it; only the database makes the instance not ready.
 */
async function redisCheck(services: Services): Promise<[string, string]> {
  const [name, state] = await check('redis', () => services.rateLimitStore.ping())
  return [name, state === 'ok' ? 'ok' : DEGRADED]
}

export async function registerOpsRoutes(app: FastifyInstance, services: Services, listener: string): Promise<void> {
  const { metrics, config } = services
  // One labelled histogram per (method, route pattern, status), looked up by one string: prom-client would hash
  // the four labels on every observation. The set is bounded: route patterns, HTTP methods and statuses.
  const observers = new Map<string, ReturnType<typeof metrics.requests.labels>>()
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unknown'
    const key = `${request.method} ${route} ${reply.statusCode}`
    let observer = observers.get(key)
    if (observer === undefined) {
      observer = metrics.requests.labels({ listener, method: request.method, route, status: reply.statusCode })
      observers.set(key, observer)
    }
    observer.observe(reply.elapsedTime / 1000)
    done()
  })

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }))

  app.get('/readyz', { schema: { hide: true } }, async () => {
    const checks = Object.fromEntries(
      await Promise.all([check('database', () => sql`select 1`.execute(services.db)), ...(config.redisUrl ? [redisCheck(services)] : [])]),
    )
    const failing = Object.entries(checks).filter(([, state]) => state !== 'ok' && state !== DEGRADED)
    if (failing.length > 0) {
      throw new ApiError('service_unavailable', `Not ready: ${failing.map(([name, state]) => `${name} ${state}`).join('; ')}.`, { 'retry-after': '2' })
    }
    return { status: 'ready', checks }
  })

  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    checkMetricsAccess(request, config.metricsToken)
    return reply.type(metrics.registry.contentType).send(await metrics.scrape())
  })
}
