// Failed log-ins in the database, the store login-throttle.ts counts on (so every instance counts the same
// failures): the portal's in portal_login_failures, the console's in operator_login_failures, tables of the same
// columns. An email is counted by its key (email-address.ts), so one address however its domain is written.
import type { Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import type { Database } from '../../db/schema.js'
import { emailKeyOf } from '../../kernel/email-address.js'
import type { LoginFailuresStore } from './login-throttle.js'

export function loginFailuresStore({
  db,
  clock,
  table,
}: {
  db: Kysely<Database>
  clock: Clock
  table: 'portal_login_failures' | 'operator_login_failures'
}): LoginFailuresStore & { clearFailures(email: string): Promise<void> } {
  /** How many failures match, and the oldest's time. */
  async function countSince(input: {
    email?: string
    address: string
    since: number
  }): Promise<{ count: number; oldest: number | undefined }> {
    let query = db
      .selectFrom(table)
      .select((eb) => [eb.fn.countAll<number | bigint | string>().as('count'), eb.fn.min('at').as('oldest')])
      .where('address', '=', input.address)
      .where('at', '>', input.since)
    if (input.email !== undefined) query = query.where('email_key', '=', emailKeyOf(input.email))
    const row = await query.executeTakeFirstOrThrow()
    const count = Number(row.count)
    return { count, oldest: count === 0 ? undefined : Number(row.oldest) }
  }

  return {
    /** Failed log-ins for one email from one client address since `since`. */
    failuresSince: (input: { email: string; address: string; since: number }) => countSince(input),
    /** Failed log-ins from one client address, for any email, since `since` (password spraying). */
    failuresFromAddressSince: (input: { address: string; since: number }) => countSince(input),
    recordFailure: async (input: { email: string; address: string }) => {
      const { seq } = await db
        .insertInto(table)
        .values({ email_key: emailKeyOf(input.email), address: input.address, at: clock.now() })
        .returning('seq')
        .executeTakeFirstOrThrow()
      return { forget: async () => void (await db.deleteFrom(table).where('seq', '=', seq).execute()) }
    },
    purgeFailures: async (before: number): Promise<void> => {
      await db.deleteFrom(table).where('at', '<=', before).execute()
    },
    /** Forgets the failed log-ins of an email, from every address (after its password was reset). */
    clearFailures: async (email: string): Promise<void> => {
      await db.deleteFrom(table).where('email_key', '=', emailKeyOf(email)).execute()
    },
  }
}
