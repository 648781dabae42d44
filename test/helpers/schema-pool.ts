// Migrated PostgreSQL schemas, reused from test to test. Making one (a clone of the migrated schema: tables,
// indexes, triggers, functions) and dropping it afterwards cost 0.6 to 0.9 s, most of it PostgreSQL's own CPU, paid
// by every test of the PostgreSQL pass; emptying one costs a few milliseconds (48 ms claimed and handed back, against
// 640). A test claims a schema of the pool with a session advisory lock held for as long as it runs (a test process
// that dies lets go of it with its connection), and the schema is emptied when it is claimed, so whatever its last
// user left (a crash included) is gone. A schema whose structure a test changed (a trigger it added, a table it
// dropped) is not what its comment says it was made as: it is dropped and made again.
import { createHash } from 'node:crypto'
import pg from 'pg'

type After = { after: (fn: () => Promise<void>) => void }

/** Schemas of the pool at most (several test processes, a test with several instances each). */
const POOL_SIZE = 64
const EMPTY_LOCK_TIMEOUT = '5s'

/** What a schema is made of (its relations, columns, defaults, triggers, functions and constraints), as one hash. */
const FINGERPRINT = `select md5(coalesce(string_agg(x, ',' order by x), '')) as fp from (
  select 'c:' || relname || ':' || relkind::text as x from pg_class where relnamespace = $1::text::regnamespace
  union all select 'a:' || c.relname || '.' || a.attname || ':' || a.atttypid::text || ':' ||
    a.attnotnull::text || ':' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
    from pg_attribute a join pg_class c on c.oid = a.attrelid
    left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where c.relnamespace = $1::text::regnamespace and a.attnum > 0 and not a.attisdropped
  union all select 't:' || tgname || ':' || tgenabled::text from pg_trigger t join pg_class c on c.oid = t.tgrelid
    where c.relnamespace = $1::text::regnamespace
  union all select 'p:' || proname || ':' || md5(prosrc) from pg_proc where pronamespace = $1::text::regnamespace
  union all select 'k:' || conname from pg_constraint where connamespace = $1::text::regnamespace) s`

/**
 * Claims a schema of the pool for the test, emptied, or made by `create` (which migrates an empty schema of that
 * name); it is handed back when the test ends. `version` names what the schemas are made of (the migrations): a
 * schema of another version is never claimed.
 */
export async function claimPooledSchema(
  t: After,
  admin: string,
  version: string,
  create: (client: pg.Client, schema: string) => Promise<void>,
): Promise<string | undefined> {
  const key = lockKey(version)
  const client = new pg.Client({ connectionString: admin })
  await client.connect()
  // Handed back when the test ends: unlocked first (the server lets go of a closed session's locks only once its
  // process has exited, and the next test would find it still taken), then the connection closed.
  t.after(async () => {
    await client.query('select pg_advisory_unlock_all()').catch(() => undefined)
    await client.end()
  })
  for (let n = 0; n < POOL_SIZE; n++) {
    const locked = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1, $2) as ok', [key, n])
    if (!locked.rows[0]!.ok) continue
    const schema = `tp_${version}_${n}`
    if (await emptied(client, schema)) return schema
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    await dropOtherVersions(client, version)
    await create(client, schema)
    const fp = (await client.query<{ fp: string }>(FINGERPRINT, [schema])).rows[0]!.fp
    await client.query(`COMMENT ON SCHEMA ${schema} IS '${fp}'`)
    return schema
  }
  return undefined
}

const lockKey = (version: string) => Number.parseInt(createHash('sha256').update(version).digest('hex').slice(0, 7), 16)

/** Drops the pool's schemas of other versions (migrations since changed) that no test holds. */
async function dropOtherVersions(client: pg.Client, version: string): Promise<void> {
  const others = await client.query<{ name: string }>(
    `select nspname as name from pg_namespace where nspname like 'tp\\_%' and nspname not like $1`,
    [`tp\\_${version}\\_%`],
  )
  for (const { name } of others.rows) {
    const [, other, n] = /^tp_([0-9a-f]+)_(\d+)$/.exec(name) ?? []
    if (other === undefined) continue
    const args = [lockKey(other), Number(n)]
    if (!(await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1, $2) as ok', args)).rows[0]!.ok) continue
    await client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`)
    await client.query('select pg_advisory_unlock($1, $2)', args)
  }
}

/** Empties `schema` if it exists as it was made; false if it is missing, changed, or cannot be emptied now. */
async function emptied(client: pg.Client, schema: string): Promise<boolean> {
  const found = await client.query<{ made: string | null }>(
    `select obj_description(oid, 'pg_namespace') as made from pg_namespace where nspname = $1`,
    [schema],
  )
  if (found.rows.length === 0) return false
  const { fp } = (await client.query<{ fp: string }>(FINGERPRINT, [schema])).rows[0]!
  if (found.rows[0]!.made !== fp) return false
  const tables = await client.query<{ name: string }>(
    `select tablename as name from pg_tables where schemaname = $1 and tablename not like 'kysely\\_%'`,
    [schema],
  )
  // Triggers that fire whatever the session's role (the audit log's append-only guard) are off for this
  // transaction only; the others (foreign keys among them) with session_replication_role.
  const always = await client.query<{ rel: string; name: string }>(
    `select c.relname as rel, t.tgname as name from pg_trigger t join pg_class c on c.oid = t.tgrelid
     where c.relnamespace = $1::text::regnamespace and t.tgenabled = 'A' and not t.tgisinternal`,
    [schema],
  )
  const sequences = await client.query<{ name: string }>(
    'select sequencename as name from pg_sequences where schemaname = $1',
    [schema],
  )
  const trigger = (state: string) =>
    always.rows.map((r) => `ALTER TABLE ${schema}."${r.rel}" ${state} TRIGGER "${r.name}";`).join(' ')
  try {
    // DELETE, not TRUNCATE: a few milliseconds for tables of a few rows, where TRUNCATE makes every table's and
    // index's files anew (~0.2 s). Sequences restart, as in a schema just made.
    await client.query(
      `BEGIN; SET LOCAL lock_timeout = '${EMPTY_LOCK_TIMEOUT}'; SET LOCAL session_replication_role = replica;
       ${trigger('DISABLE')} ${tables.rows.map((r) => `DELETE FROM ${schema}."${r.name}";`).join(' ')}
       ${sequences.rows.map((r) => `SELECT setval('${schema}."${r.name}"', 1, false);`).join(' ')}
       ${trigger('ENABLE ALWAYS')} COMMIT`,
    )
    return true
  } catch {
    // A connection of the last user still holds a table (lock_timeout): this one is made anew.
    await client.query('ROLLBACK').catch(() => undefined)
    return false
  }
}
