import type { Dialect } from '../database.js'

// The events of rows, recorded by the database itself in the statement that changes the row: a change that rolls
// back has no event, a committed one always has it, and the request path makes no extra round trip. An account with
// no enabled endpoint subscribed to the type records nothing (one probe of webhook_endpoints' account index). The
// `data` is the object as the API answers it (the same bytes: test/modules/webhooks/row-events.test.ts), built as the
// list pages build theirs (modules/pets/pets-json.ts, modules/orders/orders-json.ts). Written out here, not
// imported: a migration must do the same thing whatever the code later says.

export interface RowEvent {
  name: string
  type: string
  table: 'pets' | 'orders' | 'messages'
  on: 'INSERT' | 'UPDATE'
  /** Which changes of the row are this event (SQL over OLD and NEW); none: every one. */
  when?: string
  /** The `data` object, per dialect. */
  data: (d: Dialect) => string
  /** The event's time: a column of the row, or null for the database's clock. */
  at: string | null
}

/** A string as JSON text, NULL when it is NULL (SQLite's json_quote writes `null`, which no string quotes to). */
export const text = (d: Dialect, e: string) =>
  d === 'postgres' ? `to_json(${e})::text` : `nullif(json_quote(${e}), 'null')`
/** Joins `"key":value` parts as one JSON object in text; an optional part is `coalesce(part, '')`. */
const object = (parts: string[]) => `'{' || ${parts.join(` || ',' || `)} || '}'`
const optional = (parts: string[], key: string, value: string) =>
  `${parts.join(` || ',' || `)} || coalesce(',"${key}":' || ${value}, '')`

const pet = (d: Dialect) =>
  `'{' || ${optional(
    [`'"id":' || NEW.id`, `'"name":' || ${text(d, 'NEW.name')}`, `'"categoryId":' || NEW.category_id`],
    'status',
    text(d, 'NEW.status'),
  )} || '}'`

const orderParts = (d: Dialect) => [
  `'"id":' || NEW.id`,
  `'"petId":' || NEW.pet_id`,
  `'"quantity":' || NEW.quantity`,
  `'"status":' || ${text(d, 'NEW.status')}`,
  `'"complete":' || (case when NEW.complete = 1 then 'true' else 'false' end)`,
  `'"createdAt":' || ${text(d, 'NEW.created_at')}`,
]
const order = (d: Dialect) => `'{' || ${optional(orderParts(d), 'shipDate', text(d, 'NEW.ship_date'))} || '}'`
const orderChanged = (d: Dialect) =>
  `'{' || ${optional(orderParts(d), 'shipDate', text(d, 'NEW.ship_date'))} || ',"previous":{"status":' || \
${text(d, 'OLD.status')} || '}}'`

const message = (d: Dialect) =>
  object([
    `'"id":' || ${text(d, 'NEW.id')}`,
    `'"message":' || ${text(d, 'NEW.message')}`,
    `'"status":' || ${text(d, 'NEW.status')}`,
    `'"createdAt":' || ${text(d, 'NEW.created_at')}`,
  ])

export const EVENTS: RowEvent[] = [
  { name: 'webhook_pet_created', type: 'pet.created', table: 'pets', on: 'INSERT', data: pet, at: 'NEW.created_at' },
  {
    name: 'webhook_order_created',
    type: 'order.created',
    table: 'orders',
    on: 'INSERT',
    data: order,
    at: 'NEW.created_at',
  },
  {
    name: 'webhook_order_deleted',
    type: 'order.deleted',
    table: 'orders',
    on: 'UPDATE',
    when: 'OLD.cancelled_at IS NULL AND NEW.cancelled_at IS NOT NULL',
    data: order,
    at: 'NEW.cancelled_at',
  },
  {
    name: 'webhook_order_updated',
    type: 'order.updated',
    table: 'orders',
    on: 'UPDATE',
    when: 'NEW.cancelled_at IS NULL AND OLD.status <> NEW.status',
    data: orderChanged,
    at: null,
  },
  {
    name: 'webhook_message_delivered',
    type: 'message.delivered',
    table: 'messages',
    on: 'UPDATE',
    when: "OLD.status <> 'delivered' AND NEW.status = 'delivered'",
    data: message,
    at: 'NEW.delivered_at',
  },
  {
    name: 'webhook_message_failed',
    type: 'message.failed',
    table: 'messages',
    on: 'UPDATE',
    when: "OLD.status <> 'failed' AND NEW.status = 'failed'",
    data: message,
    at: null,
  },
]

const subscribed = (d: Dialect, type: string) =>
  `EXISTS (SELECT 1 FROM webhook_endpoints WHERE account_id = NEW.account_id AND enabled = 1 AND (event_types = '*' \
OR ${d === 'postgres' ? 'strpos' : 'instr'}(event_types, ' ${type} ') > 0))`

const now = (d: Dialect) =>
  d === 'postgres'
    ? `to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
    : `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`

const newId = (d: Dialect) =>
  d === 'postgres' ? `'evt_' || replace(gen_random_uuid()::text, '-', '')` : `'evt_' || lower(hex(randomblob(16)))`

function insertEvent(d: Dialect, e: RowEvent, id: (d: Dialect) => string): string {
  const at = e.at === null ? now(d) : `coalesce(${e.at}, ${now(d)})`
  return `INSERT INTO webhook_events (id, account_id, type, data, created_at) VALUES (${id(d)}, NEW.account_id, \
'${e.type}', ${e.data(d)}, ${at})`
}

/**
 * The statements that create every row event's trigger (and, on PostgreSQL, its function; or replace it). `id`:
 * the SQL of a new event's id (a later migration's; this one's random ids by default).
 */
export function rowEventTriggers(
  d: Dialect,
  events = EVENTS,
  { replace = false, id = newId }: { replace?: boolean; id?: (d: Dialect) => string } = {},
): string[] {
  return events.flatMap((e) => {
    const condition = [e.when, subscribed(d, e.type)].filter(Boolean).join(' AND ')
    if (d === 'postgres') {
      const fn = `CREATE${replace ? ' OR REPLACE' : ''} FUNCTION ${e.name}() RETURNS trigger LANGUAGE plpgsql AS $$ \
BEGIN IF ${condition} THEN ${insertEvent(d, e, id)}; END IF; RETURN NULL; END $$`
      if (replace) return [fn]
      return [fn, `CREATE TRIGGER ${e.name} AFTER ${e.on} ON ${e.table} FOR EACH ROW EXECUTE FUNCTION ${e.name}()`]
    }
    const trigger = `CREATE TRIGGER ${e.name} AFTER ${e.on} ON ${e.table} WHEN ${condition} BEGIN \
${insertEvent(d, e, id)}; END`
    return replace ? [`DROP TRIGGER IF EXISTS ${e.name}`, trigger] : [trigger]
  })
}

export function dropRowEventTriggers(d: Dialect): string[] {
  return EVENTS.flatMap((e) =>
    d === 'postgres'
      ? [`DROP TRIGGER IF EXISTS ${e.name} ON ${e.table}`, `DROP FUNCTION IF EXISTS ${e.name}()`]
      : [`DROP TRIGGER IF EXISTS ${e.name}`],
  )
}

/** The event types recorded by these triggers (the catalogue checks it knows each). */
export const ROW_EVENT_TYPES = EVENTS.map((e) => e.type)
