// Prometheus metrics (prom-client), one registry per process: requests by route and status with latency,
// rate-limit refusals (by plan and limit) and bans, message delivery failures, portal sign-ups and log-ins, the
// PostgreSQL pool's use, and the gauges read at scrape (scrape-gauges.ts). With `serve --workers N` a scrape
// answers for the whole instance: the worker that takes it asks the primary, which gathers every worker's registry
// (prom-client's AggregatorRegistry) and merges them, summing unless a metric says otherwise (its `aggregator`).
import cluster from 'node:cluster'
import type { Kysely } from 'kysely'
import type pg from 'pg'
import type { Clock } from '../kernel/clock.js'
import type { PipelinedReads } from '../db/pipelined-reads.js'
import type { Database } from '../db/schema.js'
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { RedisState } from './dependency-checks.js'
import { registerScrapeGauges } from './scrape-gauges.js'

const METRICS_REQUEST = 'petstore:metrics'
const METRICS_ANSWER = 'petstore:metrics-answer'
/** prom-client's own limit for gathering the workers' registries, plus a margin. */
const CLUSTER_SCRAPE_TIMEOUT_MS = 6_000

type MetricsAnswer = { type: typeof METRICS_ANSWER; id: number; text?: string; error?: string }

/** In a cluster worker: the instance's metrics, gathered by the primary (see `answerMetricsRequests`). */
function instanceMetrics(): () => Promise<string> {
  let next = 0
  const waiting = new Map<number, (answer: MetricsAnswer) => void>()
  process.on('message', (message: MetricsAnswer) => {
    if (message?.type === METRICS_ANSWER) waiting.get(message.id)?.(message)
  })
  return () =>
    new Promise((resolve, reject) => {
      const id = next++
      const timer = setTimeout(
        () => settle({ type: METRICS_ANSWER, id, error: 'the primary did not answer' }),
        CLUSTER_SCRAPE_TIMEOUT_MS,
      )
      function settle(answer: MetricsAnswer) {
        clearTimeout(timer)
        waiting.delete(id)
        if (answer.text === undefined) reject(new Error(`gathering the workers' metrics failed: ${answer.error}`))
        else resolve(answer.text)
      }
      waiting.set(id, settle)
      process.send!({ type: METRICS_REQUEST, id })
    })
}

/** In the cluster primary: answers each worker's scrape with the sum of every worker's registry. */
export function answerMetricsRequests(): void {
  const aggregator = new AggregatorRegistry()
  cluster.on('message', (worker, message: { type?: string; id?: number }) => {
    if (message?.type !== METRICS_REQUEST) return
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: METRICS_ANSWER, id: message.id, text }),
      (err: unknown) =>
        worker.send({ type: METRICS_ANSWER, id: message.id, error: err instanceof Error ? err.message : String(err) }),
    )
  })
}

/**
 * Why a request was refused with 429: its account's `minute` or `day` window, its key's `ban`, or its client
 * `address`'s limit.
 */
type RefusedLimit = 'minute' | 'day' | 'ban' | 'address'

interface MetricsSources {
  pool?: pg.Pool
  reads?: PipelinedReads
  /** The database the outbox and account gauges are read from at scrape; none: no such gauges. */
  db?: Kysely<Database>
  clock?: Clock
  /** Redis's state, when REDIS_URL is set (`petstore_redis_up`). */
  redis?: () => Promise<RedisState>
  /** The webhooks' backlog at a time (the webhook gauges); absent: none. */
  webhookBacklog?: (now: number) => Promise<{ waiting: number; oldestSeconds: number }>
  /** The plans, each with a series of the account gauge even when no account has it. */
  plans?: readonly string[]
}

export function createMetrics({ pool, reads, db, clock, redis, webhookBacklog, plans = [] }: MetricsSources = {}) {
  const registry = new Registry()
  // prom-client's process and Node.js metrics under their standard names (`process_cpu_seconds_total`,
  // `nodejs_eventloop_lag_seconds` …), as stock Node.js dashboards and alerts expect them; ours are `petstore_*`.
  collectDefaultMetrics({ register: registry })
  // The pool's gauges first: a scrape reads them before its own queries (outbox, accounts) ask the pool for
  // connections, so an idle instance shows nothing waiting.
  if (pool) {
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          this.set(read())
        },
      })
    gauge('petstore_db_pool_connections', 'Connections open in the PostgreSQL pool', () => pool.totalCount)
    gauge('petstore_db_pool_idle', 'Idle connections in the PostgreSQL pool', () => pool.idleCount)
    gauge('petstore_db_pool_waiting', 'Queries waiting for a PostgreSQL connection', () => pool.waitingCount)
    if (reads)
      gauge('petstore_db_pipelined_connections', 'Pipelined PostgreSQL connections open for the hot reads', () =>
        reads.open(),
      )
  }
  registerScrapeGauges({ registry, db, clock, redis, webhookBacklog, plans })
  let scrape = () => registry.metrics()
  if (cluster.isWorker) {
    // This process's registry is what it reports to the primary; constructing an AggregatorRegistry makes
    // prom-client answer the primary's requests for it.
    AggregatorRegistry.setRegistries([registry])
    new AggregatorRegistry()
    scrape = instanceMetrics()
  }
  const requests = new Histogram({
    name: 'petstore_http_request_duration_seconds',
    help: 'HTTP requests by listener, method, route pattern and status, with their latency',
    labelNames: ['listener', 'method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  })
  const refusals = new Counter({
    name: 'petstore_rate_limit_refusals_total',
    help:
      'Requests refused with 429, by reason (rate_limit_exceeded, temporarily_banned) and subject (account, ' +
      'address)',
    labelNames: ['reason', 'subject'] as const,
    registers: [registry],
  })
  const bans = new Counter({
    name: 'petstore_rate_limit_bans_total',
    help: 'Temporary bans started',
    registers: [registry],
  })
  const refusedByPlan = new Counter({
    name: 'petstore_requests_refused_total',
    help:
      "Requests refused with 429 by the limit that refused them (minute, day, ban, address) and the account's " +
      'plan (none for an address)',
    labelNames: ['limit', 'plan'] as const,
    registers: [registry],
  })
  const deliveryFailures = new Counter({
    name: 'petstore_message_delivery_failures_total',
    help: 'Failed message delivery attempts by sink (log, webhook); each retry that fails counts again',
    labelNames: ['sink'] as const,
    registers: [registry],
  })
  const webhookAttempts = new Counter({
    name: 'petstore_webhook_delivery_attempts_total',
    help:
      'Webhook delivery attempts by outcome: delivered, retry (failed, tried again later) or failed (the last ' +
      'attempt, a 410, or its endpoint disabled)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  })
  for (const outcome of ['delivered', 'retry', 'failed']) webhookAttempts.labels(outcome).inc(0)
  const counter = (name: string, help: string) => new Counter({ name, help, registers: [registry] })
  const portal = {
    signups: counter(
      'petstore_portal_signups_total',
      'Portal sign-ups that created an account (a repeated address creates none)',
    ),
    logins: counter('petstore_portal_logins_total', 'Portal log-ins that succeeded'),
    loginFailures: counter(
      'petstore_portal_login_failures_total',
      'Portal log-ins refused for a wrong email or password (throttled attempts not included)',
    ),
  }
  const keyLookups = new Counter({
    name: 'petstore_key_cache_lookups_total',
    help:
      "API key look-ups by result: hit (answered from this process's cache) or miss (read from the database); " +
      'PostgreSQL only',
    labelNames: ['result'] as const,
    registers: [registry],
  })
  const hits = keyLookups.labels('hit')
  const misses = keyLookups.labels('miss')
  const keyCache = { hit: () => hits.inc(), miss: () => misses.inc() }
  return {
    registry,
    requests,
    refusals,
    bans,
    keyCache,
    portal,
    /** A webhook delivery attempt and what followed from it. */
    webhookAttempt: (outcome: 'delivered' | 'retry' | 'failed') => webhookAttempts.labels(outcome).inc(),
    refused: (limit: RefusedLimit, plan: string | undefined) => refusedByPlan.inc({ limit, plan: plan ?? 'none' }),
    /** `sink` with its failed deliveries counted under `name`. */
    countingFailures<M>(
      name: string,
      sink: { deliver(message: M): Promise<void> },
    ): { deliver(message: M): Promise<void> } {
      const failures = deliveryFailures.labels(name)
      failures.inc(0) // the series exists from the start: a rate over it needs no first failure
      return {
        deliver: (message) =>
          sink.deliver(message).catch((error: unknown) => {
            failures.inc()
            throw error
          }),
      }
    },
    scrape: () => scrape(),
  }
}

export type Metrics = ReturnType<typeof createMetrics>
