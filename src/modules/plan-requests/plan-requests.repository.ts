// The plan_requests table: an integrator's request for a higher plan, pending until an operator approves or
// declines it. Deciding is a conditional UPDATE (`state = 'pending'`), so of two operators deciding at once exactly
// one succeeds, whatever the database.
import type { ExpressionBuilder, Kysely } from 'kysely'
import type { Plan } from '../accounts/plans.js'
import type { Database, PlanRequestsTable } from '../../db/schema.js'
import { type AccountOwner, ownersOf } from '../integrators/account-owners.js'

export type PlanRequestState = PlanRequestsTable['state']

export interface PlanRequest {
  id: string
  accountId: string
  plan: Plan
  note: string
  state: PlanRequestState
  createdAt: string
  decidedAt: string | null
  /** Who decided it: an operator's email (or `cli:USER`). */
  decidedBy: string | null
  /** Why it was declined. */
  reason: string | null
}

/** A request as the console lists it: with its account's current plan, name, age and owner's address. */
export interface PlanRequestListing extends PlanRequest {
  account: {
    name: string
    plan: string
    perMinute: number | null
    perDay: number | null
    deleted: boolean
    createdAt: string
  }
  /** The portal user's address (none for an account made by the CLI). */
  email: string | null
  /** Whether that address was verified (false too when there is none). */
  verified: boolean
}

/** A page of the waiting requests, oldest first. */
export interface PendingPage {
  requests: PlanRequestListing[]
  /** Every request waiting. */
  total: number
  /** How many wait before this page. */
  before: number
  /** Whether more follow it. */
  more: boolean
}

function toRequest(row: PlanRequestsTable): PlanRequest {
  return {
    id: row.id,
    accountId: row.account_id,
    plan: row.plan as Plan,
    note: row.note,
    state: row.state,
    createdAt: row.created_at,
    decidedAt: row.decided_at,
    decidedBy: row.decided_by,
    reason: row.reason,
  }
}

const columns = [
  'id',
  'account_id',
  'plan',
  'note',
  'state',
  'created_at',
  'decided_at',
  'decided_by',
  'reason',
] as const

interface ListingRow extends PlanRequestsTable {
  account_name: string
  account_plan: string
  per_minute: number | bigint | null
  per_day: number | bigint | null
  deleted_at: string | null
  account_created_at: string
}

function toListing(r: ListingRow, owner: AccountOwner | undefined): PlanRequestListing {
  return {
    ...toRequest(r),
    account: {
      name: r.account_name,
      plan: r.account_plan,
      perMinute: r.per_minute === null ? null : Number(r.per_minute),
      perDay: r.per_day === null ? null : Number(r.per_day),
      deleted: r.deleted_at !== null,
      createdAt: r.account_created_at,
    },
    email: owner?.email ?? null,
    verified: owner?.verified ?? false,
  }
}

export function createPlanRequestsRepository({ db }: { db: Kysely<Database> }) {
  /** Requests with their account (its owner's address is the integrators', added by `listed`). */
  const listing = () =>
    db
      .selectFrom('plan_requests')
      .innerJoin('accounts', 'accounts.id', 'plan_requests.account_id')
      .select(columns.map((c) => `plan_requests.${c}` as const))
      .select([
        'accounts.name as account_name',
        'accounts.plan as account_plan',
        'accounts.per_minute',
        'accounts.per_day',
        'accounts.deleted_at',
        'accounts.created_at as account_created_at',
      ])
  /** The rows as the console lists them, each with its account's owner (one more query for all of them). */
  const listed = async (rows: ListingRow[]): Promise<PlanRequestListing[]> => {
    const owners = await ownersOf(
      db,
      rows.map((r) => r.account_id),
    )
    return rows.map((r) => toListing(r, owners.get(r.account_id)))
  }
  return {
    async insert(executor: Kysely<Database>, request: PlanRequest): Promise<void> {
      const { id, accountId, plan, note, state, createdAt } = request
      await executor
        .insertInto('plan_requests')
        .values({
          id,
          account_id: accountId,
          plan,
          note,
          state,
          created_at: createdAt,
          decided_at: null,
          decided_by: null,
          reason: null,
        })
        .execute()
    },

    async get(id: string, executor: Kysely<Database> = db): Promise<PlanRequest | undefined> {
      const row = await executor.selectFrom('plan_requests').select(columns).where('id', '=', id).executeTakeFirst()
      return row && toRequest(row)
    },

    /** The account's pending requests, oldest first. */
    async pendingOf(accountId: string, executor: Kysely<Database> = db): Promise<PlanRequest[]> {
      const rows = await executor
        .selectFrom('plan_requests')
        .select(columns)
        .where('account_id', '=', accountId)
        .where('state', '=', 'pending')
        .orderBy('created_at')
        .orderBy('id')
        .execute()
      return rows.map(toRequest)
    },

    /** The account's newest request, pending or decided. */
    async latestOf(accountId: string): Promise<PlanRequest | undefined> {
      const row = await db
        .selectFrom('plan_requests')
        .select(columns)
        .where('account_id', '=', accountId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst()
      return row && toRequest(row)
    },

    /** Pending requests (oldest first: a queue) or decided ones (most recently decided first). */
    async list(state: 'pending' | 'decided', limit: number): Promise<PlanRequestListing[]> {
      const q = listing()
      const ordered =
        state === 'pending'
          ? q.where('plan_requests.state', '=', 'pending').orderBy('plan_requests.created_at', 'asc')
          : q.where('plan_requests.state', '<>', 'pending').orderBy('plan_requests.decided_at', 'desc')
      return listed(await ordered.orderBy('plan_requests.id').limit(limit).execute())
    },

    /**
     * Up to `limit` pending requests in the queue's order (oldest first, then by id), after the request `after`
     * (a keyset: it may have been decided since, its place stays); undefined when `after` names no request.
     */
    async pendingPage(limit: number, after?: string): Promise<PendingPage | undefined> {
      const from =
        after === undefined
          ? undefined
          : await db.selectFrom('plan_requests').select(['created_at', 'id']).where('id', '=', after).executeTakeFirst()
      if (after !== undefined && !from) return undefined
      const pending = () => db.selectFrom('plan_requests').where('plan_requests.state', '=', 'pending')
      const count = (q: ReturnType<typeof pending>) =>
        q.select((eb) => eb.fn.countAll<number | bigint | string>().as('n')).executeTakeFirstOrThrow()
      const afterStart = (eb: ExpressionBuilder<Database, 'plan_requests'>) =>
        eb.or([
          eb('plan_requests.created_at', '>', from!.created_at),
          eb.and([eb('plan_requests.created_at', '=', from!.created_at), eb('plan_requests.id', '>', from!.id)]),
        ])
      let page = listing().where('plan_requests.state', '=', 'pending')
      if (from) page = page.where(afterStart)
      const [rows, total, rest] = await Promise.all([
        page
          .orderBy('plan_requests.created_at')
          .orderBy('plan_requests.id')
          .limit(limit + 1)
          .execute(),
        count(pending()),
        from ? count(pending().where(afterStart)) : undefined,
      ])
      const all = Number(total.n)
      return {
        requests: await listed(rows.slice(0, limit)),
        total: all,
        before: rest === undefined ? 0 : all - Number(rest.n),
        more: rows.length > limit,
      }
    },

    /** One request as the console shows it. */
    async getListing(id: string): Promise<PlanRequestListing | undefined> {
      const row = await listing().where('plan_requests.id', '=', id).executeTakeFirst()
      return row && (await listed([row]))[0]
    },

    /** Decides a pending request; false when it was not pending any more (someone else decided it first). */
    async decide(
      executor: Kysely<Database>,
      id: string,
      decision: { state: 'approved' | 'declined'; decidedAt: string; decidedBy: string; reason: string | null },
    ): Promise<boolean> {
      const result = await executor
        .updateTable('plan_requests')
        .set({
          state: decision.state,
          decided_at: decision.decidedAt,
          decided_by: decision.decidedBy,
          reason: decision.reason,
        })
        .where('id', '=', id)
        .where('state', '=', 'pending')
        .executeTakeFirst()
      return result.numUpdatedRows > 0n
    },

    /** The address of the account's portal user, to mail a decision to (none for an account made by the CLI). */
    async ownerEmail(accountId: string): Promise<string | undefined> {
      return (await ownersOf(db, [accountId])).get(accountId)?.email
    },
  }
}
