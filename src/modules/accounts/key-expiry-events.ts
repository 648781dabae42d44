// `key.expiring` (issue 36): 7 days and again 1 day before a key's expiry, its account's endpoints are told. Run
// every few minutes by `serve`; each key's event of each kind has an id made from the key and the kind, so it is
// recorded once however often this runs and on however many instances. Only keys of accounts with an endpoint
// subscribed to the type are read.
import { hash } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import type { Engine } from '../../db/engine.js'
import type { Database } from '../../db/schema.js'
import { recordEvent } from '../webhooks/record-event.js'
import { subscribedSql } from '../webhooks/subscribed-sql.js'
import { keyData } from './account-events.js'
import { toKeyInfo } from './account-rows.js'

const DAY_MS = 86_400_000
const NOTICES = [
  { expiresIn: '7d', withinMs: 7 * DAY_MS },
  { expiresIn: '1d', withinMs: DAY_MS },
] as const

export async function recordExpiringKeys({
  db,
  engine,
  clock,
}: {
  db: Kysely<Database>
  engine: Engine
  clock: Clock
}) {
  const now = clock.now()
  const listening = db
    .selectFrom('webhook_endpoints')
    .select('account_id')
    .where('enabled', '=', 1)
    .where(subscribedSql(db, 'event_types', 'key.expiring'))
  let recorded = 0
  for (const notice of NOTICES) {
    const keys = await db
      .selectFrom('api_keys')
      .selectAll()
      .where('revoked_at', 'is', null)
      .where('replaced_by', 'is', null)
      .where('expires_at', '>', new Date(now).toISOString())
      .where('expires_at', '<=', new Date(now + notice.withinMs).toISOString())
      .where('account_id', 'in', listening)
      .execute()
    for (const row of keys) {
      const id = `evt_${hash('sha256', `key.expiring\n${row.id}\n${notice.expiresIn}`, 'hex').slice(0, 32)}`
      const data = { ...keyData(toKeyInfo(row, now)), expiresIn: notice.expiresIn }
      await engine.write((executor) =>
        recordEvent(executor, { accountId: row.account_id, type: 'key.expiring', data, at: now, id }),
      )
      recorded++
    }
  }
  return recorded
}
