// The overview's figures, read across every account: accounts by plan, sign-ups of the last 7 days, requests of
// the last hour (minute rows) and of today (the UTC day's rows) by outcome, and the accounts with the most requests
// and the most refusals today. Each is one aggregate query on an index range (usage by time: migration 0009).
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/schema.js'
import { ownersOf } from '../../modules/integrators/account-owners.js'

const MINUTE_MS = 60_000
const DAY_MS = 86_400_000
/** Sign-ups are counted over this many UTC days, today included. */
const SIGNUP_DAYS = 7
/** The top lists' length. */
const TOP = 10

export interface PlanCount {
  plan: string
  /** Accounts on the plan that are not deleted, suspended ones included. */
  accounts: number
  suspended: number
}

/** Requests by outcome (success = admitted − client errors − server errors, as the usage service counts it). */
export interface Outcomes {
  success: number
  clientErrors: number
  refused: number
  serverErrors: number
  total: number
}

export interface TopAccount {
  accountId: string
  name: string
  email: string | null
  requests: number
  refused: number
}

export interface Overview {
  plans: PlanCount[]
  /** Accounts created per UTC day, oldest first (every day of the window, zeros included). */
  signups: Array<{ day: string; count: number }>
  /** From the start of the minute 59 minutes ago to now (the portal's hour chart's window). */
  lastHour: { from: string; outcomes: Outcomes }
  /** Since 00:00 UTC today. */
  today: { from: string; outcomes: Outcomes }
  mostRequests: TopAccount[]
  mostRefused: TopAccount[]
}

type Sums = { admitted: unknown; refused: unknown; client_errors: unknown; server_errors: unknown }

function outcomesOf(row: Sums | undefined): Outcomes {
  // Sums are null over no rows, and numeric (a string) on PostgreSQL.
  const n = (v: unknown) => Number(v ?? 0)
  const admitted = n(row?.admitted)
  const [refused, clientErrors, serverErrors] = [n(row?.refused), n(row?.client_errors), n(row?.server_errors)]
  return {
    success: admitted - clientErrors - serverErrors,
    clientErrors,
    refused,
    serverErrors,
    total: admitted + refused,
  }
}

const iso = (ms: number) => new Date(ms).toISOString()

export function createOverviewRepository({ db }: { db: Kysely<Database> }) {
  const sums = sql`sum(admitted) as admitted, sum(refused) as refused, sum(client_errors) as client_errors, \
sum(server_errors) as server_errors`

  async function top(day: string, by: 'requests' | 'refused'): Promise<TopAccount[]> {
    const measure = by === 'requests' ? sql`sum(u.admitted + u.refused)` : sql`sum(u.refused)`
    const { rows } = await sql<{
      account_id: string
      name: string
      requests: unknown
      refused: unknown
    }>`
      select u.account_id, a.name, sum(u.admitted + u.refused) as requests, sum(u.refused) as refused
      from usage_days u join accounts a on a.id = u.account_id
      where u.day = ${day}
      group by u.account_id, a.name
      having ${measure} > 0
      order by ${measure} desc, u.account_id
      limit ${TOP}`.execute(db)
    // The owners' addresses are the integrators' (their tables), asked for in one more query.
    const owners = await ownersOf(
      db,
      rows.map((r) => r.account_id),
    )
    return rows.map((r) => ({
      accountId: r.account_id,
      name: r.name,
      email: owners.get(r.account_id)?.email ?? null,
      requests: Number(r.requests),
      refused: Number(r.refused),
    }))
  }

  return {
    async read(now: number): Promise<Overview> {
      const today = now - (now % DAY_MS)
      const hourFrom = iso(now - (now % MINUTE_MS) - 59 * MINUTE_MS)
      const signupFrom = today - (SIGNUP_DAYS - 1) * DAY_MS
      const [plans, signups, hour, day, mostRequests, mostRefused] = await Promise.all([
        db
          .selectFrom('accounts')
          .select([
            'plan',
            (eb) => eb.fn.countAll<number | string>().as('accounts'),
            (eb) => eb.fn.count<number | string>('suspended_at').as('suspended'),
          ])
          .where('deleted_at', 'is', null)
          .groupBy('plan')
          .execute(),
        // created_at is an ISO instant: its first ten characters are its UTC day.
        sql<{ day: string; count: unknown }>`select substr(created_at, 1, 10) as day, count(*) as count from accounts
          where created_at >= ${iso(signupFrom)} group by substr(created_at, 1, 10)`.execute(db),
        sql<Sums>`select ${sums} from usage_minutes where minute >= ${hourFrom}`.execute(db),
        sql<Sums>`select ${sums} from usage_days where day = ${iso(today)}`.execute(db),
        top(iso(today), 'requests'),
        top(iso(today), 'refused'),
      ])
      const perDay = new Map(signups.rows.map((r) => [r.day, Number(r.count)]))
      return {
        plans: plans.map((p) => ({ plan: p.plan, accounts: Number(p.accounts), suspended: Number(p.suspended) })),
        signups: Array.from({ length: SIGNUP_DAYS }, (_, i) => {
          const day = iso(signupFrom + i * DAY_MS).slice(0, 10)
          return { day, count: perDay.get(day) ?? 0 }
        }),
        lastHour: { from: hourFrom, outcomes: outcomesOf(hour.rows[0]) },
        today: { from: iso(today), outcomes: outcomesOf(day.rows[0]) },
        mostRequests,
        mostRefused,
      }
    },
  }
}
