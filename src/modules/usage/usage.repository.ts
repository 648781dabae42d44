// Usage counts in the database: added to (upsert-increment, so every instance's counts add up), read back as
// series, and purged. Minute rows answer "the last hour", day rows (UTC days) "the last 30 days". Columns:
// admitted and refused (429) by the rate limiter; of the admitted, client_errors (4xx) and server_errors (5xx).
import { sql, type Kysely } from 'kysely'
import type { Engine } from '../../db/engine.js'
import type { Database } from '../../db/schema.js'
import type { MinuteCount } from './usage-buffer.js'

const DAY_MS = 86_400_000
/** Rows per INSERT: well under SQLite's and PostgreSQL's bound-parameter limits. */
const ROWS_PER_STATEMENT = 500

export interface Period {
  table: 'usage_minutes' | 'usage_days'
  column: 'minute' | 'day'
}
export const MINUTES: Period = { table: 'usage_minutes', column: 'minute' }
export const DAYS: Period = { table: 'usage_days', column: 'day' }

/** The counted columns, in the order they are written and read. */
const COUNTS = ['admitted', 'refused', 'client_errors', 'server_errors'] as const
/** One period's figures, by column. */
export type Counts = Record<(typeof COUNTS)[number], number>

interface Row extends Counts {
  key_id: string
  account_id: string
  at: string
}

const countsOf = (c: MinuteCount): Counts => ({
  admitted: c.admitted,
  refused: c.refused,
  client_errors: c.clientErrors,
  server_errors: c.serverErrors,
})

const iso = (ms: number) => new Date(ms).toISOString()

/** The minute counts, and the same counts summed per key and UTC day; both sorted by (key, time). */
function rowsOf(counts: MinuteCount[]): { minutes: Row[]; days: Row[] } {
  const days = new Map<string, Row>()
  const minutes: Row[] = []
  for (const c of counts) {
    const figures = countsOf(c)
    minutes.push({ key_id: c.keyId, account_id: c.accountId, at: iso(c.minute), ...figures })
    const day = iso(c.minute - (c.minute % DAY_MS))
    const held = days.get(`${c.keyId} ${day}`)
    if (held === undefined)
      days.set(`${c.keyId} ${day}`, { key_id: c.keyId, account_id: c.accountId, at: day, ...figures })
    else for (const column of COUNTS) held[column] += figures[column]
  }
  // One order for every writer: two instances adding to the same rows cannot deadlock on PostgreSQL.
  const order = (a: Row, b: Row) =>
    a.key_id === b.key_id ? (a.at < b.at ? -1 : a.at > b.at ? 1 : 0) : a.key_id < b.key_id ? -1 : 1
  return { minutes: minutes.sort(order), days: [...days.values()].sort(order) }
}

async function addRows(trx: Kysely<Database>, { table, column }: Period, rows: Row[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const values = rows.slice(i, i + ROWS_PER_STATEMENT).map((r) => ({
      key_id: r.key_id,
      account_id: r.account_id,
      [column]: r.at,
      ...Object.fromEntries(COUNTS.map((c) => [c, BigInt(r[c])])),
    }))
    const increments = Object.fromEntries(
      COUNTS.map((c) => [c, sql`${sql.ref(`${table}.${c}`)} + ${sql.ref(`excluded.${c}`)}`]),
    )
    await trx
      .insertInto(table as 'usage_minutes')
      .values(values as never)
      .onConflict((oc) => oc.columns(['key_id', column as 'minute']).doUpdateSet(increments as never))
      .execute()
  }
}

export function createUsageRepository({ db, engine }: { db: Kysely<Database>; engine: Engine }) {
  return {
    /** Adds the counts to the minute and day rows, in one transaction (all of them or none). */
    async add(counts: MinuteCount[]): Promise<void> {
      if (counts.length === 0) return
      const { minutes, days } = rowsOf(counts)
      await engine.transaction(async (trx) => {
        await addRows(trx, MINUTES, minutes)
        await addRows(trx, DAYS, days)
      })
    },

    /** Counts per period start in [from, to] (ISO instants), for the account or one of its keys. */
    async series(
      period: Period,
      q: { accountId: string; keyId?: string; from: string; to: string },
    ): Promise<Map<string, Counts>> {
      const at = sql.ref(period.column)
      const { rows } = await sql<{ at: string } & Record<(typeof COUNTS)[number], unknown>>`
        select ${at} as at, sum(admitted) as admitted, sum(refused) as refused, sum(client_errors) as client_errors, \
sum(server_errors) as server_errors
        from ${sql.table(period.table)}
        where account_id = ${q.accountId} ${q.keyId === undefined ? sql`` : sql`and key_id = ${q.keyId}`} and ${at} \
>= ${q.from} and ${at} <= ${q.to}
        group by ${at}`.execute(db)
      return new Map(
        rows.map((r) => [
          r.at,
          {
            admitted: Number(r.admitted),
            refused: Number(r.refused),
            client_errors: Number(r.client_errors),
            server_errors: Number(r.server_errors),
          },
        ]),
      )
    },

    /** Deletes the rows of periods that started before `before` (ISO instant). */
    async purge(period: Period, before: string): Promise<number> {
      const result =
        await sql`delete from ${sql.table(period.table)} where ${sql.ref(period.column)} < ${before}`.execute(db)
      return Number(result.numAffectedRows ?? 0n)
    },
  }
}
