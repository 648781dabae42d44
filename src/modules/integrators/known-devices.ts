// The browsers each portal user has signed in from (portal_devices), by the hash of a random cookie the portal sets
// (sites/portal/new-browser.ts): a sign-in from a browser not listed is mailed to its user.
import { createHash } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import type { Database } from '../../db/schema.js'

const deviceHash = (cookie: string): string => createHash('sha256').update(cookie).digest('hex')

export function createKnownDevices({ db, clock }: { db: Kysely<Database>; clock: Clock }) {
  return {
    /** Notes a sign-in of the user from the browser with this cookie; true when it had signed in from it before. */
    async signedInFrom(userId: string, cookie: string): Promise<boolean> {
      const at = new Date(clock.now()).toISOString()
      const hash = deviceHash(cookie)
      const seen = await db
        .updateTable('portal_devices')
        .set({ last_seen_at: at })
        .where('user_id', '=', userId)
        .where('device_hash', '=', hash)
        .executeTakeFirst()
      if (Number(seen.numUpdatedRows) > 0) return true
      // Two sign-ins at once from one new browser: one row, both mailed (each is a sign-in the user should hear of).
      await db
        .insertInto('portal_devices')
        .values({ user_id: userId, device_hash: hash, first_seen_at: at, last_seen_at: at })
        .onConflict((oc) => oc.columns(['user_id', 'device_hash']).doNothing())
        .execute()
      return false
    },
  }
}

export type KnownDevices = ReturnType<typeof createKnownDevices>
