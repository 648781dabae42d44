// Records the SQL the app runs, compiled as the database receives it, so a test can ask the database how it
// would execute that exact statement (SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN). Instrumentation
// only: every query still runs.
import { CompiledQuery, PostgresQueryCompiler, SqliteQueryCompiler, sql, type Kysely, type KyselyPlugin } from 'kysely'

export function recordQueries(dialect: 'sqlite' | 'postgres' = 'sqlite') {
  const queries: CompiledQuery[] = []
  const compiler = dialect === 'postgres' ? new PostgresQueryCompiler() : new SqliteQueryCompiler()
  // Kysely also hands every subquery's builder to transformQuery; only a query that ran has a result.
  const compiled = new WeakMap<object, CompiledQuery>()
  const plugin: KyselyPlugin = {
    transformQuery(args) {
      compiled.set(args.queryId, compiler.compileQuery(args.node, args.queryId))
      return args.node
    },
    async transformResult(args) {
      const query = compiled.get(args.queryId)
      if (query) queries.push(query)
      return args.result
    },
  }
  return { plugin, queries }
}

/** The `detail` lines of SQLite's plan for a recorded query, run with the same parameters. */
export async function queryPlan(db: Kysely<any>, query: CompiledQuery): Promise<string[]> {
  const result = await db.executeQuery<{ detail: string }>(
    CompiledQuery.raw(`EXPLAIN QUERY PLAN ${query.sql}`, [...query.parameters]),
  )
  return result.rows.map((row) => row.detail)
}

export type PlanNode = {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  'Index Cond'?: string
  Filter?: string
  Plans?: PlanNode[]
}

/**
 * PostgreSQL's plan for a recorded query, with the same parameters, sequential scans off (for the EXPLAIN only, on
 * the one connection of a transaction), so a small table cannot hide a plan that could not use the index.
 */
export async function postgresPlan(db: Kysely<any>, query: CompiledQuery): Promise<PlanNode> {
  return db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx)
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      CompiledQuery.raw(`explain (format json) ${query.sql}`, [...query.parameters]),
    )
    return rows[0]!['QUERY PLAN'][0].Plan
  })
}

/** Every node of a plan, depth first. */
export const planNodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(planNodes)]
