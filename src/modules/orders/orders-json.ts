// A page of orders as JSON text, built by the database, as a page of pets is (pets-json.ts says why): the objects
// have exactly the shape of the Order schema (orders.schemas.ts), which still documents the response;
// test/api/v1/orders/list-orders.json.test.ts holds every list response to the single-order endpoint's output.
import { sql, type RawBuilder } from 'kysely'
import type { Dialect } from '../../db/database.js'

/**
 * The aggregate over a subquery of orders rows (id, pet_id, quantity, ship_date, status, complete, created_at): a
 * JSON array of Order objects ordered by id, `shipDate` left out when null; `[]` when empty. `shipDate` comes last,
 * where the serializer puts an optional property (after the required ones).
 */
export function ordersJsonArray(dialect: Dialect): RawBuilder<string> {
  if (dialect === 'postgres') {
    // Text around to_json of the strings, as the pets' page does; the integers need no escaping.
    return sql<string>`'[' || coalesce(string_agg('{"id":' || id || ',"petId":' || pet_id || ',"quantity":' || \
quantity || ',"status":' || to_json(status)::text || ',"complete":' || \
(case when complete = 1 then 'true' else 'false' end) || ',"createdAt":' || to_json(created_at)::text || \
coalesce(',"shipDate":' || to_json(ship_date)::text, '') || '}', ',' order by id), '') || ']'`
  }
  const object = (shipDate: boolean) =>
    sql`json_object('id', id, 'petId', pet_id, 'quantity', quantity, 'status', status, 'complete', \
json(case when complete = 1 then 'true' else 'false' end), 'createdAt', created_at\
${sql.raw(shipDate ? ", 'shipDate', ship_date" : '')})`
  return sql<string>`json_group_array(case when ship_date is null then ${object(false)} else ${object(true)} end \
order by id)`
}
