// The webhooks' backlog, read when /metrics is scraped (modules/webhooks/backlog.ts says what it counts). Taken once
// across a cluster's workers (`max`): the database is shared.
import { Gauge, type Registry } from 'prom-client'

export function registerWebhookGauges({
  registry,
  backlog,
  withinTimeout,
}: {
  registry: Registry
  /** The backlog as the webhooks module reads it from the database (modules/webhooks/backlog.ts). */
  backlog: () => Promise<{ waiting: number; oldestSeconds: number }>
  withinTimeout: <T>(work: Promise<T>) => Promise<T>
}): void {
  // prom-client collects every metric of a scrape at once: both gauges share one read.
  let reading: Promise<{ waiting: number; oldestSeconds: number }> | undefined
  const read = () => (reading ??= withinTimeout(backlog()).finally(() => (reading = undefined)))
  const gauge = (name: string, help: string, pick: (f: { waiting: number; oldestSeconds: number }) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      aggregator: 'max',
      async collect() {
        try {
          this.set(pick(await read()))
        } catch {
          this.set(Number.NaN)
        }
      },
    })
  gauge(
    'petstore_webhook_events_waiting',
    'Webhook events waiting to go out (first attempts, retries, tests and events sent again)',
    (f) => f.waiting,
  )
  gauge(
    'petstore_webhook_oldest_waiting_age_seconds',
    'Age of the oldest event still waiting to reach an endpoint (0 when none waits)',
    (f) => f.oldestSeconds,
  )
}
