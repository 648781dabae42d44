// A budget of second-factor attempts per operator, whatever address they come from. The log-in throttle
// (src/web/login-throttle.ts) counts failures per email and address, and per address: someone who has an operator's
// password and many addresses could otherwise try codes without end (3 of the 10^6 codes are valid at any time, so
// a few hundred thousand tries suffice), and concurrent requests all pass its check before any failure is counted.
// Here an attempt is recorded *before* its code is checked (a row in operator_login_failures whose address is a
// `second-factor …` marker, never a real client address, so the throttle's own counts do not see it), then the
// attempts in the window are counted: beyond the budget the code is not even looked at. Two racing attempts can
// only both be refused, never both pass. Only attempts whose password was right count, so a stranger who merely
// knows the email cannot lock the operator out.
import type { Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import type { Database } from '../../db/schema.js'
import { emailKeyOf } from '../../kernel/email-address.js'
import { LOGIN_FAILURES_ALLOWED, LOGIN_WINDOW_MS } from '../sign-in/login-throttle.js'
import { randomSecret } from '../../kernel/secrets.js'

const MARKER = 'second-factor '

export function codeAttempts({ db, clock }: { db: Kysely<Database>; clock: Clock }) {
  return {
    /**
     * Records an attempt at a code for this operator; true when it is within the budget (then check the code),
     * false when LOGIN_FAILURES_ALLOWED attempts in LOGIN_WINDOW_MS came first (do not check it).
     */
    async reserve(email: string): Promise<{ allowed: boolean; release: () => Promise<void> }> {
      const key = emailKeyOf(email)
      const address = `${MARKER}${randomSecret()}`
      const at = clock.now()
      await db.insertInto('operator_login_failures').values({ email_key: key, address, at }).execute()
      const row = await db
        .selectFrom('operator_login_failures')
        .select((eb) => eb.fn.countAll<number | bigint | string>().as('count'))
        .where('email_key', '=', key)
        .where('address', 'like', `${MARKER}%`)
        .where('at', '>', at - LOGIN_WINDOW_MS)
        .executeTakeFirstOrThrow()
      // This attempt's own row, forgotten when it was not a wrong code (a success, or refused unchecked).
      const release = async () =>
        void (await db
          .deleteFrom('operator_login_failures')
          .where('email_key', '=', key)
          .where('address', '=', address)
          .execute())
      return { allowed: Number(row.count) <= LOGIN_FAILURES_ALLOWED, release }
    },
  }
}
