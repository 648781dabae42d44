// Prometheus metrics (prom-client), one registry per process: requests by route and status with latency,
// rate-limit refusals and bans, and the PostgreSQL pool's use.
import type pg from 'pg'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

export function createMetrics({ pool }: { pool?: pg.Pool } = {}) {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'petstore_process_' })
  const requests = new Histogram({
    name: 'petstore_http_request_duration_seconds',
    help: 'HTTP requests by listener, method, route pattern and status, with their latency',
    labelNames: ['listener', 'method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  })
  const refusals = new Counter({
    name: 'petstore_rate_limit_refusals_total',
    help: 'Requests refused with 429, by reason (rate_limit_exceeded, temporarily_banned) and subject (account, address)',
    labelNames: ['reason', 'subject'] as const,
    registers: [registry],
  })
  const bans = new Counter({ name: 'petstore_rate_limit_bans_total', help: 'Temporary bans started', registers: [registry] })
  if (pool) {
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({ name, help, registers: [registry], collect() { this.set(read()) } })
    gauge('petstore_db_pool_connections', 'Connections open in the PostgreSQL pool', () => pool.totalCount)
    gauge('petstore_db_pool_idle', 'Idle connections in the PostgreSQL pool', () => pool.idleCount)
    gauge('petstore_db_pool_waiting', 'Queries waiting for a PostgreSQL connection', () => pool.waitingCount)
  }
  return { registry, requests, refusals, bans }
}

export type Metrics = ReturnType<typeof createMetrics>
