// PostgreSQL, with Kysely's catalog look-ups (its migrator asks whether its schema and tables exist) limited to the
// connection's own schema. Kysely's introspector reads every schema of the database and resolves each table by
// name again (pg_get_serial_sequence): when another schema of the same database is dropped or created meanwhile
// (another service's, or a test's), the query fails with "schema … does not exist" or "column … does not exist",
// and our start-up migration with it. Reading only pg_class rows of our schema, by oid, cannot be disturbed so.
import { SchemaMigrationLockAdapter } from './migration-lock.js'
import {
  sql,
  PostgresDialect,
  type DialectAdapter,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type Kysely,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely'

class OwnSchemaIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<any>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string | null }>`select current_schema() as name`.execute(this.db)
    return rows.flatMap((r) => (r.name === null ? [] : [{ name: r.name }]))
  }

  /** The tables and views of the current schema, by name (columns are not needed by the migrator; none given). */
  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; schema: string; kind: string }>`
      select c.relname as name, ns.nspname as schema, c.relkind as kind
      from pg_catalog.pg_class c join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
      where ns.nspname = current_schema() and c.relkind in ('r', 'v', 'p')`.execute(this.db)
    return rows.map((r) => ({ name: r.name, schema: r.schema, isView: r.kind === 'v', columns: [] }))
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() }
  }
}

export class OwnSchemaPostgresDialect extends PostgresDialect {
  /** Migrations lock the schema, not the database, and wait without a long statement (migration-lock.ts). */
  override createAdapter(): DialectAdapter {
    return new SchemaMigrationLockAdapter()
  }

  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new OwnSchemaIntrospector(db)
  }
}
