// Console sessions (operator_sessions, ids stored as hashes) and failed console log-ins (operator_login_failures):
// the stores src/web/sessions.ts and src/web/login-throttle.ts work on. A disabled operator has no live session.
import type { Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import type { Database } from '../../db/schema.js'
import { loginFailuresStore } from '../sign-in/login-failures.js'
import { randomSecret, secretHash } from '../../kernel/secrets.js'
import type { StoredSession } from '../sign-in/session-store.js'
import { operatorOf, type Operator } from './operator.js'

export function operatorSessionsStore({ db, clock }: { db: Kysely<Database>; clock: Clock }) {
  const now = () => clock.now()
  return {
    async findSession(id: string): Promise<StoredSession | undefined> {
      const row = await db
        .selectFrom('operator_sessions')
        .selectAll()
        .where('id_hash', '=', secretHash(id))
        .executeTakeFirst()
      if (!row) return undefined
      return {
        userId: row.operator_id,
        createdAt: Number(row.created_at),
        lastSeenAt: Number(row.last_seen_at),
        expiresAt: Number(row.expires_at),
      }
    },

    /** The session's operator while it is enabled and set up. */
    async findUser(operatorId: string): Promise<Operator | undefined> {
      const row = await db
        .selectFrom('operators')
        .selectAll()
        .where('id', '=', operatorId)
        .where('disabled_at', 'is', null)
        .executeTakeFirst()
      const operator = row && operatorOf(row)
      return operator?.setUp ? operator : undefined
    },

    async createSession(
      operatorId: string,
      maxAgeMs: number,
      client: { userAgent: string | null; address: string | null },
    ): Promise<string> {
      const id = randomSecret()
      const at = now()
      const userAgent = client.userAgent === null ? null : client.userAgent.slice(0, 300)
      await db
        .insertInto('operator_sessions')
        .values({
          id_hash: secretHash(id),
          operator_id: operatorId,
          created_at: at,
          last_seen_at: at,
          expires_at: at + maxAgeMs,
          user_agent: userAgent,
          address: client.address,
        })
        .execute()
      return id
    },

    touchSession: async (id: string): Promise<void> => {
      await db
        .updateTable('operator_sessions')
        .set({ last_seen_at: now() })
        .where('id_hash', '=', secretHash(id))
        .execute()
    },

    deleteSession: async (id: string): Promise<void> => {
      await db.deleteFrom('operator_sessions').where('id_hash', '=', secretHash(id)).execute()
    },

    deleteSessionsOf: async (operatorId: string, keepId?: string): Promise<void> => {
      let query = db.deleteFrom('operator_sessions').where('operator_id', '=', operatorId)
      if (keepId !== undefined) query = query.where('id_hash', '!=', secretHash(keepId))
      await query.execute()
    },

    purgeSessions: async (idleMs: number): Promise<void> => {
      const at = now()
      await db
        .deleteFrom('operator_sessions')
        .where((eb) => eb.or([eb('expires_at', '<=', at), eb('last_seen_at', '<=', at - idleMs)]))
        .execute()
    },

    /** Failed console log-ins (the store of src/web/login-throttle.ts). */
    failures: loginFailuresStore({ db, clock, table: 'operator_login_failures' }),
  }
}
