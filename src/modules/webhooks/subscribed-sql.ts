// Whether an endpoint row is subscribed to an event type, as SQL: its `event_types` is `*`, or holds the type with a
// space on both sides (event-types.ts's encoding). One piece for every query that asks it at run time; the triggers
// of migrations 0015 and 0017 say the same in their own frozen text.
import { sql, type Kysely, type RawBuilder } from 'kysely'
import { dialectOf } from '../../db/database.js'
import type { Database } from '../../db/schema.js'

/**
 * `column`: the endpoints' `event_types` (qualified if need be); `type`: the event type, a value or an expression
 * of the query.
 */
export function subscribedSql(
  db: Kysely<Database>,
  column: string,
  type: string | RawBuilder<string>,
): RawBuilder<boolean> {
  const contains = sql.raw(dialectOf(db) === 'postgres' ? 'strpos' : 'instr')
  const events = sql.ref(column)
  const padded = typeof type === 'string' ? sql`${` ${type} `}` : sql`' ' || ${type} || ' '`
  return sql<boolean>`(${events} = '*' or ${contains}(${events}, ${padded}) > 0)`
}
