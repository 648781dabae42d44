// The webhooks' backlog, read when /metrics is scraped: events and deliveries waiting to go out, and how long the
// oldest has waited (its event's time). Both read the partial indexes of what waits (events not yet fanned out,
// pending deliveries), not the delivered history. Taken once across a cluster's workers (`max`): the database is
// shared.
import type { Kysely } from 'kysely'
import { Gauge, type Registry } from 'prom-client'
import type { Database } from '../db/schema.js'

async function backlog(db: Kysely<Database>, now: number): Promise<{ waiting: number; oldestSeconds: number }> {
  const events = db.selectFrom('webhook_events').where('fanned_out', '=', 0)
  const deliveries = db.selectFrom('webhook_deliveries').where('status', '=', 'pending')
  const row = await db
    .selectNoFrom([
      events.select((eb) => eb.fn.countAll().as('n')).as('events'),
      deliveries.select((eb) => eb.fn.countAll().as('n')).as('deliveries'),
      events.select((eb) => eb.fn.min('seq').as('s')).as('oldest_event'),
      deliveries.select((eb) => eb.fn.min('event_seq').as('s')).as('oldest_delivery'),
    ])
    .executeTakeFirstOrThrow()
  const seqs = [row.oldest_event, row.oldest_delivery].filter((s) => s !== null).map((s) => BigInt(s as bigint))
  // bigint: Math.min takes numbers only.
  const [oldestSeq] = seqs.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const oldest =
    oldestSeq === undefined
      ? undefined
      : await db.selectFrom('webhook_events').select('created_at').where('seq', '=', oldestSeq).executeTakeFirst()
  const since = oldest === undefined ? now : Date.parse(oldest.created_at)
  return { waiting: Number(row.events) + Number(row.deliveries), oldestSeconds: Math.max(0, (now - since) / 1000) }
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
  gauge(
    'petstore_webhook_events_waiting',
    'Webhook deliveries waiting to go out (retries included), and events not yet handed to their endpoints',
    (f) => f.waiting,
  )
  gauge(
    'petstore_webhook_oldest_waiting_age_seconds',
    'Age of the oldest event still waiting to reach an endpoint (0 when none waits)',
    (f) => f.oldestSeconds,
  )
}
