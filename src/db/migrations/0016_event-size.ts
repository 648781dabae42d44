import { sql, type Kysely, type Migration } from 'kysely'
import { dialectOf, type Dialect } from '../database.js'
import { EVENTS, rowEventTriggers, text, type RowEvent } from './0015_webhook-triggers.js'

// An event's payload stays under 20 KB (issue 36). Every event's is far smaller but a message's: 4,096 characters
// that JSON must escape (control characters, six bytes each) make 24 KB. Such a message's events carry its first
// 3,000 characters (at most 18,000 bytes of JSON) and `"truncated":true`; GET /messages/{id} has the whole text.
// Written out here, not imported: a migration must do the same thing whatever the code later says.
const TEXT_CAP_BYTES = 16_384
const CUT_CHARACTERS = 3_000

const tooLong = (d: Dialect) =>
  d === 'postgres'
    ? `octet_length(to_json(NEW.message)::text) > ${TEXT_CAP_BYTES}`
    : `length(CAST(json_quote(NEW.message) AS BLOB)) > ${TEXT_CAP_BYTES}`
const cut = (d: Dialect) =>
  d === 'postgres' ? `left(NEW.message, ${CUT_CHARACTERS})` : `substr(NEW.message, 1, ${CUT_CHARACTERS})`

export const cappedMessage = (d: Dialect) =>
  `'{' || ${[
    `'"id":' || ${text(d, 'NEW.id')}`,
    `'"message":' || (CASE WHEN ${tooLong(d)} THEN ${text(d, cut(d))} ELSE ${text(d, 'NEW.message')} END)`,
    `'"status":' || ${text(d, 'NEW.status')}`,
    `'"createdAt":' || ${text(d, 'NEW.created_at')}`,
  ].join(` || ',' || `)} || (CASE WHEN ${tooLong(d)} THEN ',"truncated":true' ELSE '' END) || '}'`

const messageEvents = (data: RowEvent['data']) =>
  EVENTS.filter((e) => e.table === 'messages').map((e) => ({ ...e, data }))

export const eventSize: Migration = {
  async up(db: Kysely<unknown>) {
    const statements = rowEventTriggers(dialectOf(db), messageEvents(cappedMessage), { replace: true })
    for (const statement of statements) await sql.raw(statement).execute(db)
  },

  async down(db: Kysely<unknown>) {
    const before = EVENTS.filter((e) => e.table === 'messages')
    for (const statement of rowEventTriggers(dialectOf(db), before, { replace: true }))
      await sql.raw(statement).execute(db)
  },
}
