// Hot queries, built with Kysely once per shape and then run with new values: no query building, compiling
// or driver round-trips per request. The same builder also runs as plain Kysely, which is what happens inside
// a transaction (the query must use the transaction's connection) and with an engine that cannot run SQL
// directly (the plain Kysely engine, e.g. under a test's query-recording plugin, which then sees every query).
import { createHash } from 'node:crypto'
import type { Compilable, Kysely } from 'kysely'
import type { Engine } from './engine.js'
import type { Database } from './schema.js'

/** A query builder's result: anything Kysely can compile and execute. */
type Runnable<R> = Compilable<R> & { execute(): Promise<R[]> }

/** Gives a named value: a placeholder while compiling, the value itself when run as plain Kysely. */
type Param = <T>(name: string) => T

// A placeholder is a string no request can put into a compiled template: templates are compiled once, from
// these markers only, and values are bound by position afterwards (never substituted into SQL text).
const MARK = '\u0000param:'

interface Template {
  sql: string
  /** Statement name (PostgreSQL prepared statements are per name). */
  name: string
  /** Each SQL parameter: a value name to look up, or a constant the builder put there. */
  slots: ({ name: string } | { constant: unknown })[]
  /** A SELECT: the engine may run it on a connection of its own (PostgreSQL's pipelined reads). */
  readOnly: boolean
}

/**
 * A family of queries sharing one builder. `shape` holds what changes the SQL text (optional filters, a
 * LIMIT written as a literal: SQLite re-prepares a statement on every run when LIMIT is a bound parameter);
 * values are bound as parameters.
 */
export function prepared<S, R>(
  { db, engine }: { db: Kysely<Database>; engine: Engine },
  build: (qb: Kysely<Database>, shape: S, p: Param) => Runnable<R>,
) {
  const templates = new Map<string, Template>()

  function template(shape: S): Template {
    const key = JSON.stringify(shape)
    let t = templates.get(key)
    if (t === undefined) {
      const compiled = build(db, shape, ((name: string) => MARK + name) as Param).compile()
      const slots = compiled.parameters.map((v) =>
        typeof v === 'string' && v.startsWith(MARK) ? { name: v.slice(MARK.length) } : { constant: v },
      )
      const name = `q_${createHash('sha1').update(compiled.sql).digest('hex').slice(0, 16)}`
      t = { sql: compiled.sql, name, slots, readOnly: compiled.query.kind === 'SelectQueryNode' }
      templates.set(key, t)
    }
    return t
  }

  return {
    /** Runs the query; given a transaction (or any other executor), on it. */
    async rows(shape: S, values: Record<string, unknown>, executor: Kysely<Database> = db): Promise<R[]> {
      if (engine.rows) {
        const t = template(shape)
        const rows = engine.rows(
          t.sql,
          t.name,
          t.slots.map((s) => ('name' in s ? values[s.name] : s.constant)),
          executor,
          t.readOnly,
        )
        if (rows !== undefined) return (await rows) as R[]
      }
      return build(executor, shape, ((name: string) => values[name]) as Param).execute()
    },

    async first(shape: S, values: Record<string, unknown>, executor?: Kysely<Database>): Promise<R | undefined> {
      return (await this.rows(shape, values, executor))[0]
    },
  }
}
