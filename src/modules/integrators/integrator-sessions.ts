// The portal's sessions (portal_sessions, ids stored as hashes) and failed log-ins (portal_login_failures): the
// stores src/web/sessions.ts and src/web/login-throttle.ts work on, as operators/operator-sessions.ts is the console's.
import type { Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import type { Database } from '../../db/schema.js'
import { loginFailuresStore } from '../sign-in/login-failures.js'
import { randomSecret, secretHash } from '../../kernel/secrets.js'
import type { StoredSession } from '../sign-in/session-store.js'

export function portalSessionsStore({ db, clock }: { db: Kysely<Database>; clock: Clock }) {
  const now = () => clock.now()
  return {
    async createSession(
      userId: string,
      maxAgeMs: number,
      client: { userAgent: string | null; address: string | null },
    ): Promise<string> {
      const id = randomSecret()
      const at = now()
      // What the account page shows of a session; a user agent is the client's to choose, so it is bounded.
      const userAgent = client.userAgent === null ? null : client.userAgent.slice(0, 300)
      await db
        .insertInto('portal_sessions')
        .values({
          id_hash: secretHash(id),
          user_id: userId,
          created_at: at,
          last_seen_at: at,
          expires_at: at + maxAgeMs,
          user_agent: userAgent,
          address: client.address,
          // Logging in is confirming who one is: sudo mode starts with the session.
          sudo_at: at,
        })
        .execute()
      return id
    },

    /** Ends every session of a user, except `keepId` (the session id, not its hash) when given. */
    deleteSessionsOf: async (userId: string, keepId?: string): Promise<void> => {
      let query = db.deleteFrom('portal_sessions').where('user_id', '=', userId)
      if (keepId !== undefined) query = query.where('id_hash', '!=', secretHash(keepId))
      await query.execute()
    },

    async findSession(id: string): Promise<StoredSession | undefined> {
      const row = await db
        .selectFrom('portal_sessions')
        .selectAll()
        .where('id_hash', '=', secretHash(id))
        .executeTakeFirst()
      if (!row) return undefined
      return {
        userId: row.user_id,
        createdAt: Number(row.created_at),
        lastSeenAt: Number(row.last_seen_at),
        expiresAt: Number(row.expires_at),
      }
    },

    touchSession: async (id: string): Promise<void> => {
      await db
        .updateTable('portal_sessions')
        .set({ last_seen_at: now() })
        .where('id_hash', '=', secretHash(id))
        .execute()
    },

    /** When the session last confirmed it is its owner (sudo mode), epoch ms, or undefined. */
    async sudoAt(id: string): Promise<number | undefined> {
      const row = await db
        .selectFrom('portal_sessions')
        .select('sudo_at')
        .where('id_hash', '=', secretHash(id))
        .executeTakeFirst()
      return row?.sudo_at == null ? undefined : Number(row.sudo_at)
    },

    /** The account the session works in (teams: one of its user's memberships), or null before one is chosen. */
    async sessionAccount(id: string): Promise<string | null> {
      const row = await db
        .selectFrom('portal_sessions')
        .select('account_id')
        .where('id_hash', '=', secretHash(id))
        .executeTakeFirst()
      return row?.account_id ?? null
    },

    setSessionAccount: async (id: string, accountId: string): Promise<void> => {
      await db
        .updateTable('portal_sessions')
        .set({ account_id: accountId })
        .where('id_hash', '=', secretHash(id))
        .execute()
    },

    confirmSudo: async (id: string): Promise<void> => {
      await db.updateTable('portal_sessions').set({ sudo_at: now() }).where('id_hash', '=', secretHash(id)).execute()
    },

    deleteSession: async (id: string): Promise<void> => {
      await db.deleteFrom('portal_sessions').where('id_hash', '=', secretHash(id)).execute()
    },

    /** Sessions past their absolute expiry, or idle for longer than `idleMs`. */
    purgeSessions: async (idleMs: number): Promise<void> => {
      const at = now()
      await db
        .deleteFrom('portal_sessions')
        .where((eb) => eb.or([eb('expires_at', '<=', at), eb('last_seen_at', '<=', at - idleMs)]))
        .execute()
    },

    /** Failed log-ins (counted by the log-in throttle, forgotten for an email after a reset). */
    ...loginFailuresStore({ db, clock, table: 'portal_login_failures' }),
  }
}
