// Records the SQL the app runs, compiled as the database receives it, so a test can ask the database how it
// would execute that exact statement (SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN). Instrumentation
// only: every query still runs.
import { CompiledQuery, PostgresQueryCompiler, SqliteQueryCompiler, type Kysely, type KyselyPlugin } from 'kysely'

export function recordQueries(dialect: 'sqlite' | 'postgres' = 'sqlite') {
  const queries: CompiledQuery[] = []
  const compiler = dialect === 'postgres' ? new PostgresQueryCompiler() : new SqliteQueryCompiler()
  const plugin: KyselyPlugin = {
    transformQuery(args) {
      queries.push(compiler.compileQuery(args.node, args.queryId))
      return args.node
    },
    async transformResult(args) {
      return args.result
    },
  }
  return { plugin, queries }
}

/** The `detail` lines of SQLite's plan for a recorded query, run with the same parameters. */
export async function queryPlan(db: Kysely<any>, query: CompiledQuery): Promise<string[]> {
  const result = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${query.sql}`, [...query.parameters]))
  return result.rows.map((row) => row.detail)
}
