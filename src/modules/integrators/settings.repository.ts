// What the account settings page reads and changes in the portal's tables: the user's live sessions, a password
// change that keeps only the session that made it, and a change of address that waits for the link sent to the
// new one (portal_tokens, purpose 'email', with the address in new_email). Deleting an account is the accounts
// service's (accounts.repository.ts, deleteAccount): an operator will do it too.
import type { Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import { kyselyEngine, type Engine } from '../../db/engine.js'
import type { Database } from '../../db/schema.js'
import { secretHash } from '../../kernel/secrets.js'
import { issueLinkToken, LINK_MIN_INTERVAL_MS, voidLinkTokens } from './link-tokens.js'
import { writeAudit } from '../audit/audit.repository.js'
import { integratorActor, passwordChanged } from './actor.js'

export interface SessionListing {
  createdAt: number
  lastSeenAt: number
  userAgent: string | null
  address: string | null
  /** The session of the request that lists them. */
  current: boolean
}

/** What opening a change-of-address link did. */
type EmailChangeResult =
  | { outcome: 'changed'; userId: string; oldEmail: string; newEmail: string }
  /** Another account has the address now (it took it after the link was sent). */
  | { outcome: 'taken'; newEmail: string }
  /** Expired, used, replaced by a newer request, or cancelled by a password change since. */
  | { outcome: 'unusable' }

/** A unique index refused the write (SQLite and PostgreSQL say it differently). */
function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE'
}

export function createSettingsRepository({
  db,
  clock,
  engine = kyselyEngine(db),
}: {
  db: Kysely<Database>
  clock: Clock
  engine?: Engine
}) {
  const now = () => clock.now()

  /** The token's row if it is a change-of-address token that works now. */
  const usableEmailToken = (executor: Kysely<Database>, token: string) =>
    executor
      .selectFrom('portal_tokens')
      .innerJoin('portal_users', 'portal_users.id', 'portal_tokens.user_id')
      .select([
        'portal_tokens.user_id',
        'portal_tokens.new_email',
        'portal_tokens.created_at',
        'portal_users.password_changed_at',
      ])
      .where('portal_tokens.token_hash', '=', secretHash(token))
      .where('portal_tokens.purpose', '=', 'email')
      .where('portal_tokens.used_at', 'is', null)
      .where('portal_tokens.expires_at', '>', now())
      .executeTakeFirst()
      // A password changed (or reset) after the request cancels it: "reset your password if this was not you".
      .then((row) =>
        row &&
        row.new_email !== null &&
        (row.password_changed_at === null || Number(row.password_changed_at) <= Number(row.created_at))
          ? { userId: row.user_id, newEmail: row.new_email }
          : undefined,
      )

  return {
    /** The user's sessions that still work (not past their absolute expiry, not idle for `idleMs`), newest first. */
    async sessionsOf(userId: string, currentSessionId: string | undefined, idleMs: number): Promise<SessionListing[]> {
      const at = now()
      const rows = await db
        .selectFrom('portal_sessions')
        .select(['id_hash', 'created_at', 'last_seen_at', 'user_agent', 'address'])
        .where('user_id', '=', userId)
        .where('expires_at', '>', at)
        .where('last_seen_at', '>', at - idleMs)
        .orderBy('last_seen_at', 'desc')
        .execute()
      const current = currentSessionId === undefined ? undefined : secretHash(currentSessionId)
      return rows.map((r) => ({
        createdAt: Number(r.created_at),
        lastSeenAt: Number(r.last_seen_at),
        userAgent: r.user_agent,
        address: r.address,
        current: r.id_hash === current,
      }))
    },

    /** Ends every session of the user but `keepSessionId` (the id, not its hash). */
    endOtherSessions: async (userId: string, keepSessionId: string): Promise<void> => {
      await db
        .deleteFrom('portal_sessions')
        .where('user_id', '=', userId)
        .where('id_hash', '!=', secretHash(keepSessionId))
        .execute()
    },

    /**
     * A password change from the settings page, in one transaction: the new hash, every other session ended (a
     * thief's included), and every emailed link voided (a pending change of address made by someone else is
     * cancelled by it).
     */
    changePassword: (userId: string, passwordHash: string, keepSessionId: string, address?: string): Promise<void> =>
      engine.transaction(async (trx) => {
        const at = now()
        await trx
          .updateTable('portal_users')
          .set({ password_hash: passwordHash, password_changed_at: at })
          .where('id', '=', userId)
          .execute()
        await trx
          .deleteFrom('portal_sessions')
          .where('user_id', '=', userId)
          .where('id_hash', '!=', secretHash(keepSessionId))
          .execute()
        await voidLinkTokens(trx, userId)
        await passwordChanged(trx, at, userId, address, 'settings')
      }),

    /**
     * A change-of-address token for `newEmail` (earlier ones stop working), or undefined when one was issued
     * less than `minIntervalMs` ago, so nobody can have an inbox flooded.
     */
    issueEmailToken: (userId: string, newEmail: string, ttlMs: number, minIntervalMs = LINK_MIN_INTERVAL_MS) =>
      issueLinkToken(engine, { userId, purpose: 'email', ttlMs, at: now(), minIntervalMs, newEmail }),

    /** The address a change-of-address link would move its user to, if the link works now (to show its form). */
    emailTokenTarget: async (token: string): Promise<string | undefined> =>
      (await usableEmailToken(db, token))?.newEmail,

    /**
     * Opens a change-of-address link: uses it up and moves the user to the new address (and its unique key), in
     * one transaction. The address stays verified (the link proved it), the user's other emailed links die (they
     * went to the old address), and the account's name follows the address when it was the address.
     */
    async applyEmailChange(
      token: string,
      keyOf: (email: string) => string,
      address?: string,
    ): Promise<EmailChangeResult> {
      let newEmail = ''
      try {
        return await engine.transaction(async (trx): Promise<EmailChangeResult> => {
          const target = await usableEmailToken(trx, token)
          if (!target) return { outcome: 'unusable' }
          // One statement decides who uses the link: a second click finds it used.
          const used = await trx
            .updateTable('portal_tokens')
            .set({ used_at: now() })
            .where('token_hash', '=', secretHash(token))
            .where('used_at', 'is', null)
            .executeTakeFirst()
          if (used.numUpdatedRows === 0n) return { outcome: 'unusable' }
          newEmail = target.newEmail
          const newKey = keyOf(target.newEmail)
          const holder = await trx
            .selectFrom('portal_users')
            .select('id')
            .where('email_key', '=', newKey)
            .executeTakeFirst()
          if (holder && holder.id !== target.userId) return { outcome: 'taken', newEmail: target.newEmail }
          const user = await trx
            .selectFrom('portal_users')
            .select(['email', 'account_id', 'verified_at'])
            .where('id', '=', target.userId)
            .executeTakeFirstOrThrow()
          const verifiedAt = user.verified_at ?? new Date(now()).toISOString()
          await trx
            .updateTable('portal_users')
            .set({ email: target.newEmail, email_key: newKey, verified_at: verifiedAt })
            .where('id', '=', target.userId)
            .execute()
          await trx
            .deleteFrom('portal_tokens')
            .where('user_id', '=', target.userId)
            .where('token_hash', '!=', secretHash(token))
            .execute()
          await trx
            .updateTable('accounts')
            .set({ name: target.newEmail })
            .where('id', '=', user.account_id)
            .where('name', '=', user.email)
            .execute()
          await writeAudit(trx, now(), integratorActor(user, address), {
            action: 'account.email_changed',
            accountId: user.account_id,
            target: { kind: 'account', id: user.account_id },
            changes: { before: { email: user.email }, after: { email: target.newEmail } },
          })
          return { outcome: 'changed', userId: target.userId, oldEmail: user.email, newEmail: target.newEmail }
        })
      } catch (error) {
        // Another account took the address between our look-up and the update: the unique key refused it.
        if (isUniqueViolation(error)) return { outcome: 'taken', newEmail }
        throw error
      }
    },
  }
}

export type SettingsRepository = ReturnType<typeof createSettingsRepository>
