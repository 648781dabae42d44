// What other modules and the console ask of the integrators' tables, which this module alone reads and writes
// (portal_*): who owns an account (its portal user's address and whether it was verified), which accounts an
// address fragment finds, and removing an account's users with the account. An account made by the CLI has no
// portal user, so it has no owner here.
import { type Kysely, sql } from 'kysely'
import type { Database } from '../../db/schema.js'

export interface AccountOwner {
  email: string
  /** Whether the address was verified. */
  verified: boolean
}

/** The owners of the given accounts (one query); accounts without a portal user are absent from the map. */
export async function ownersOf(
  db: Kysely<Database>,
  accountIds: readonly string[],
): Promise<Map<string, AccountOwner>> {
  const ids = [...new Set(accountIds)]
  if (ids.length === 0) return new Map()
  const rows = await db
    .selectFrom('portal_users')
    .select(['account_id', 'email', 'verified_at'])
    .where('account_id', 'in', ids)
    .execute()
  return new Map(rows.map((r) => [r.account_id, { email: r.email, verified: r.verified_at !== null }]))
}

/** Every account's owner address (`accounts list`). */
export async function ownerEmails(db: Kysely<Database>): Promise<Map<string, string>> {
  const rows = await db.selectFrom('portal_users').select(['account_id', 'email']).execute()
  return new Map(rows.map((r) => [r.account_id, r.email]))
}

/**
 * Accounts whose owner's address contains a fragment: `likePattern` is a LIKE pattern over the lower-cased address
 * key, escaped by the caller with `escapeClause` as its ESCAPE clause.
 */
export async function accountsByAddress(
  db: Kysely<Database>,
  { likePattern, escapeClause, limit }: { likePattern: string; escapeClause: ReturnType<typeof sql>; limit: number },
): Promise<Array<{ account_id: string; email: string }>> {
  return db
    .selectFrom('portal_users')
    .select(['account_id', 'email'])
    .where(sql<boolean>`email_key like ${likePattern} ${escapeClause}`)
    .limit(limit)
    .execute()
}

/**
 * Removes the account's portal users with everything that lets them in (links, sessions, failed log-ins, known
 * browsers), in the transaction that deletes the account (the accounts module calls it through its
 * `removeWithAccount` hook). `keep`: users still members of another account (teams), whose log-in stays.
 */
export async function removeOwnersOf(
  trx: Kysely<Database>,
  accountId: string,
  keep: readonly string[] = [],
): Promise<void> {
  const ids = (await usersOfAccount(trx, accountId)).filter((id) => !keep.includes(id))
  if (ids.length === 0) return
  await trx.deleteFrom('portal_tokens').where('user_id', 'in', ids).execute()
  await trx.deleteFrom('portal_sessions').where('user_id', 'in', ids).execute()
  await trx.deleteFrom('portal_devices').where('user_id', 'in', ids).execute()
  await trx
    .deleteFrom('portal_login_failures')
    .where('email_key', 'in', trx.selectFrom('portal_users').select('email_key').where('id', 'in', ids))
    .execute()
  await trx.deleteFrom('portal_users').where('id', 'in', ids).execute()
}

/** Portal users' addresses by id (the teams module's member lists). */
export async function emailsOf(db: Kysely<Database>, userIds: readonly string[]): Promise<Map<string, string>> {
  if (userIds.length === 0) return new Map()
  const rows = await db.selectFrom('portal_users').select(['id', 'email']).where('id', 'in', userIds).execute()
  return new Map(rows.map((r) => [r.id, r.email]))
}

/** Portal users whose address key contains a fragment (LIKE pattern, as accountsByAddress): the console's search. */
export async function usersByAddress(
  db: Kysely<Database>,
  { likePattern, escapeClause, limit }: { likePattern: string; escapeClause: ReturnType<typeof sql>; limit: number },
): Promise<Array<{ id: string; email: string }>> {
  return db
    .selectFrom('portal_users')
    .select(['id', 'email'])
    .where(sql<boolean>`email_key like ${likePattern} ${escapeClause}`)
    .limit(limit)
    .execute()
}

/** Ends a user's portal sessions in one account (a member removed), in the caller's transaction. */
export async function endSessionsIn(trx: Kysely<Database>, userId: string, accountId: string): Promise<void> {
  await trx.deleteFrom('portal_sessions').where('user_id', '=', userId).where('account_id', '=', accountId).execute()
}

/** Ends every portal session working in the account (it is being deleted). */
export async function endAccountSessions(trx: Kysely<Database>, accountId: string): Promise<void> {
  await trx.deleteFrom('portal_sessions').where('account_id', '=', accountId).execute()
}

/** The portal users made with an account (its founder's log-in), which go with it. */
export async function usersOfAccount(trx: Kysely<Database>, accountId: string): Promise<string[]> {
  const rows = await trx.selectFrom('portal_users').select('id').where('account_id', '=', accountId).execute()
  return rows.map((r) => r.id)
}
