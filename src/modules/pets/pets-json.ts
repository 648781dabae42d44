// A page of pets as JSON text, built by the database. Turning 21 rows into JavaScript values, then objects, then
// JSON again cost more than the query itself (bench/optimisations.md, entry 13); both databases build the same
// text in C in a fraction of that. The objects have exactly the shape of the Pet schema (pets.schemas.ts),
// which still documents the response; test/api/v1/pets/list-pets.json.test.ts holds every list response to the
// single-pet endpoint's serialization of the same pets, on both backends.
import { sql, type RawBuilder } from 'kysely'
import type { Dialect } from '../../db/database.js'

/**
 * The aggregate over a subquery of pets rows (id, name, category_id, status): a JSON array of Pet objects ordered
 * by id, `status` left out when it is null (as the serializer leaves out an undefined property); `[]` when empty.
 */
export function petsJsonArray(dialect: Dialect): RawBuilder<string> {
  if (dialect === 'postgres') {
    // Each object written as text around to_json of the two strings: to_json escapes a string exactly as
    // json_build_object does (the same escape_json), and the integers need none. Building the objects with
    // json_build_object and json_strip_nulls measured ~70 µs more of PostgreSQL's CPU per page of 20
    // (bench/optimisations.md, entry 19). string_agg joins them with ',' where json_agg would write ', ', so both
    // databases send the same bytes.
    return sql<string>`'[' || coalesce(string_agg('{"id":' || id || ',"name":' || to_json(name)::text || \
',"categoryId":' || category_id || coalesce(',"status":' || to_json(status)::text, '') || '}', ',' order by id), '') \
|| ']'`
  }
  // SQLite has no json_strip_nulls; json_group_array keeps the JSON subtype of json_object's result (so objects
  // are not quoted as strings) and yields '[]' over no rows.
  return sql<string>`json_group_array(case when status is null then json_object('id', id, 'name', name, 'categoryId', \
category_id) else json_object('id', id, 'name', name, 'categoryId', category_id, 'status', status) end order by id)`
}
