// Operational endpoints, outside /v1 and without an API key: liveness, readiness, metrics.
import { timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { ApiError } from '../contract/errors.js'
import { errorResponse, jsonResponse } from '../contract/schemas.js'
import type { Config } from '../../kernel/config.js'
import type { DatabaseState, RedisState } from '../../ops/dependency-checks.js'
import type { Metrics } from '../../ops/metrics.js'

/** What the operational endpoints need, built by the composition root. */
interface OpsContext {
  metrics: Metrics
  config: Pick<Config, 'metricsToken'>
  /** The state of the database and of Redis now (dependency-checks.ts). */
  readiness(): Promise<{ database: DatabaseState; redis: RedisState }>
}

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
    throw new ApiError('invalid_api_key', 'GET /metrics needs the METRICS_TOKEN as a bearer token.', {
      'www-authenticate': 'Bearer realm="metrics"',
    })
  }
}

/**
 * Each backend's state and nothing more: no host, port or driver message (the body is public; a driver's message
 * names the address it could not reach). Redis down is not a reason to leave the load balancer: the fallback limiter
 * serves (per process, at a share of each quota), and taking every instance out because the shared counter store is
 * down would turn a degraded state into an outage. `degraded` says it; only the database makes the instance not ready.
 */
const ReadySchema = Type.Object(
  {
    status: Type.Literal('ready'),
    checks: Type.Object(
      {
        database: Type.Literal('ok', { description: 'The database answers (else the answer is a 503).' }),
        redis: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('off')], {
          description:
            '`ok`: the limits are shared through Redis; `degraded`: Redis does not answer and each process limits on ' +
            'its own; `off`: no REDIS_URL.',
        }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
)

const READY_SCHEMA = {
  hide: true,
  response: {
    200: jsonResponse('Ready: the database answers; Redis is `ok`, `degraded` or `off`.', ReadySchema),
    503: errorResponse(
      'Not ready: the database does not answer (`service_unavailable`, message `Not ready: database unavailable.`).',
      {
        'Retry-After': Type.Integer({ minimum: 1, description: 'Seconds before asking again.' }),
      },
      ['service_unavailable'],
    ),
  },
}

export async function registerOpsRoutes(app: FastifyInstance, ops: OpsContext, listener: string): Promise<void> {
  const { metrics, config } = ops
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

  app.get('/readyz', { schema: READY_SCHEMA }, async () => {
    const { database, redis } = await ops.readiness()
    if (database !== 'ok')
      throw new ApiError('service_unavailable', 'Not ready: database unavailable.', { 'retry-after': '2' })
    return { status: 'ready' as const, checks: { database, redis } }
  })

  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    checkMetricsAccess(request, config.metricsToken)
    return reply.type(metrics.registry.contentType).send(await metrics.scrape())
  })
}
