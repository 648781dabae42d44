// The webhooks' backlog, read when /metrics is scraped: deliveries waiting to go out (an event's are made with it),
// and how long the oldest has waited (its event's time). Both read the partial index of pending deliveries, not the
// delivered history. Taken once across a cluster's workers (`max`): the database is shared.
import { sql, type Kysely } from 'kysely'
import { Gauge, type Registry } from 'prom-client'
import type { Database } from '../db/schema.js'

async function backlog(db: Kysely<Database>, now: number): Promise<{ waiting: number; oldestSeconds: number }> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .where('status', '=', sql.lit('pending'))
    .select((eb) => [eb.fn.countAll().as('n'), eb.fn.min('event_seq').as('oldest')])
    .executeTakeFirstOrThrow()
  const oldest =
    row.oldest === null
      ? undefined
      : await db
          .selectFrom('webhook_events')
          .select('created_at')
          .where('seq', '=', BigInt(row.oldest as bigint))
          .executeTakeFirst()
  const since = oldest === undefined ? now : Date.parse(oldest.created_at)
  return { waiting: Number(row.n), oldestSeconds: Math.max(0, (now - since) / 1000) }
}

export function registerWebhookGauges({
  registry,
  db,
  now,
  withinTimeout,
}: {
  registry: Registry
  db: Kysely<Database>
  now: () => number
  withinTimeout: <T>(work: Promise<T>) => Promise<T>
}): void {
  // prom-client collects every metric of a scrape at once: both gauges share one read.
  let reading: Promise<{ waiting: number; oldestSeconds: number }> | undefined
  const read = () => (reading ??= withinTimeout(backlog(db, now())).finally(() => (reading = undefined)))
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
  gauge('petstore_webhook_events_waiting', 'Webhook deliveries waiting to go out (retries included)', (f) => f.waiting)
  gauge(
    'petstore_webhook_oldest_waiting_age_seconds',
    'Age of the oldest event still waiting to reach an endpoint (0 when none waits)',
    (f) => f.oldestSeconds,
  )
}
