// The webhooks' backlog (the metrics): events waiting to go out (those past each enabled endpoint's stream
// position, and the pending deliveries: retries, tests, events sent again), and how long the oldest has waited (its
// event's time). Both read indexes of what waits, not the delivered history.
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/schema.js'
import { streamBacklog } from './event-streams.repository.js'

interface WebhookBacklog {
  waiting: number
  oldestSeconds: number
}

export async function webhookBacklog(db: Kysely<Database>, now: number): Promise<WebhookBacklog> {
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
  const streams = await streamBacklog(db)
  const times = [oldest?.created_at, ...streams.map((s) => s.oldest)].flatMap((t) => (t ? [Date.parse(t)] : []))
  const since = Math.min(now, ...times)
  const waiting = Number(row.n) + streams.reduce((sum, s) => sum + s.waiting, 0)
  return { waiting, oldestSeconds: Math.max(0, (now - since) / 1000) }
}
