// Compacts the system catalogs of the test database (TEST_DATABASE_URL) before the PostgreSQL + Redis pass. Tests
// and the processes they start make and drop schemas (tables, indexes, triggers, functions); each leaves dead rows in
// pg_class, pg_attribute and the rest, and autovacuum frees them for reuse without shrinking the files. After many
// runs on one server pg_class and pg_attribute had grown to 127 MB and 441 MB for 900 live rows: every catalog
// look-up (each CREATE, each DROP, each query planned against a new schema) scanned that, and the pass took twice
// as long. VACUUM FULL rewrites them (seconds; nothing else is running yet).
import pg from 'pg'

const CATALOGS = [
  'pg_class',
  'pg_attribute',
  'pg_attrdef',
  'pg_type',
  'pg_depend',
  'pg_index',
  'pg_constraint',
  'pg_trigger',
  'pg_proc',
  'pg_description',
  'pg_namespace',
  'pg_sequence',
  'pg_statistic',
]

const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
try {
  await client.connect()
  for (const catalog of CATALOGS) await client.query(`VACUUM FULL ${catalog}`)
} catch (error) {
  // Not a superuser (a managed server, say), or no server: the pass says so itself, this only made it faster.
  console.log(`# the catalogs were not compacted: ${error.message}`)
} finally {
  await client.end().catch(() => undefined)
}
