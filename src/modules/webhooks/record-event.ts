// Records an event that no row trigger describes (a key, an account, a quota), in the transaction of the change
// itself (`executor`): one statement that inserts the event only when an enabled endpoint of the account is
// subscribed to its type, as the triggers of 0015_webhook-triggers.ts do for rows (each endpoint's stream then reads
// it: event-streams.repository.ts). An account nobody listens for pays one index probe.
import { sql, type Kysely } from 'kysely'
import { subscribedSql } from './subscribed-sql.js'
import type { Database } from '../../db/schema.js'
import { newEventId } from './event-id.js'
import type { EventType } from './event-types.js'

export async function recordEvent(
  executor: Kysely<Database>,
  input: { accountId: string; type: EventType; data: unknown; at: number; id?: string },
): Promise<void> {
  const id = input.id ?? newEventId(input.at)
  const data = JSON.stringify(input.data)
  const at = new Date(input.at).toISOString()
  // A fixed id (a quota threshold's, once a day) is recorded once: another insert of it adds nothing.
  await sql`insert into webhook_events (id, account_id, type, data, created_at)
select cast(${id} as text), cast(${input.accountId} as text), cast(${input.type} as text), cast(${data} as text),
cast(${at} as text) where exists (select 1 from webhook_endpoints where account_id = ${input.accountId}
and enabled = 1 and ${subscribedSql(executor, 'event_types', input.type)})
on conflict (id) do nothing`.execute(executor)
}
