// The portal's own tables: users (each linked to the account made at sign-up), emailed single-use tokens,
// server-side sessions and failed log-ins. Tokens and session ids are stored only as hashes.
import type { Kysely } from 'kysely'
import type { AccountsRepository } from '../accounts/accounts.repository.js'
import { newId } from '../accounts/api-keys.js'
import type { Clock } from '../clock.js'
import { kyselyEngine, type Engine } from '../db/engine.js'
import type { Database, PortalUsersTable } from '../db/schema.js'
import { emailKeyOf } from './email-address.js'
import { randomSecret, secretHash } from './secrets.js'

export type PortalUser = PortalUsersTable
export type TokenPurpose = 'verify' | 'reset' | 'email'

export interface PortalSession {
  userId: string
  createdAt: number
  lastSeenAt: number
  expiresAt: number
}

/** The key an address is unique by: normalised (IDNA domain) and lower-cased, see email-address.ts. */
export const emailKey = emailKeyOf

export function createPortalRepository({ db, clock, accounts, engine = kyselyEngine(db) }: { db: Kysely<Database>; clock: Clock; accounts: AccountsRepository; engine?: Engine }) {
  const now = () => clock.now()
  /** The user a usable token belongs to (to check a new password against their address), without using it. */
  async function tokenOwner(token: string, purpose: TokenPurpose): Promise<PortalUser | undefined> {
    return db
      .selectFrom('portal_tokens')
      .innerJoin('portal_users', 'portal_users.id', 'portal_tokens.user_id')
      .selectAll('portal_users')
      .where('portal_tokens.token_hash', '=', secretHash(token))
      .where('portal_tokens.purpose', '=', purpose)
      .where('portal_tokens.used_at', 'is', null)
      .where('portal_tokens.expires_at', '>', now())
      .executeTakeFirst()
  }

  return {
    findUserByEmail: (email: string): Promise<PortalUser | undefined> => db.selectFrom('portal_users').selectAll().where('email_key', '=', emailKey(email)).executeTakeFirst(),
    findUser: (id: string): Promise<PortalUser | undefined> => db.selectFrom('portal_users').selectAll().where('id', '=', id).executeTakeFirst(),

    /**
     * Creates the account (plan free) and its portal user; undefined if the address took an account meanwhile.
     * `email` is an address parseEmailAddress accepted (normalised).
     */
    async createUser(input: { email: string; passwordHash: string }): Promise<PortalUser | undefined> {
      const email = input.email
      const account = await accounts.createAccount({ name: email, plan: 'free' })
      const user: PortalUser = {
        id: newId('user'),
        account_id: account.id,
        email,
        email_key: emailKey(email),
        password_hash: input.passwordHash,
        verified_at: null,
        created_at: new Date(now()).toISOString(),
        password_changed_at: null,
      }
      const inserted = await db.insertInto('portal_users').values(user).onConflict((oc) => oc.column('email_key').doNothing()).executeTakeFirst()
      if (inserted.numInsertedOrUpdatedRows === 1n) return user
      // Another sign-up took the address between our look-up and this insert: its account is the one.
      await db.deleteFrom('accounts').where('id', '=', account.id).execute()
      return undefined
    },

    markVerified: async (userId: string): Promise<void> => {
      await db.updateTable('portal_users').set({ verified_at: new Date(now()).toISOString() }).where('id', '=', userId).where('verified_at', 'is', null).execute()
    },

    /** A password change: the new hash, and every session of the user ends (a thief's included). */
    setPassword: (userId: string, passwordHash: string): Promise<void> =>
      engine.transaction(async (trx) => {
        await trx.updateTable('portal_users').set({ password_hash: passwordHash, password_changed_at: now() }).where('id', '=', userId).execute()
        await trx.deleteFrom('portal_sessions').where('user_id', '=', userId).execute()
      }),

    /**
     * A new sign-up for an address whose account is still unverified: the newest sign-up's password wins and every
     * session of the account ends, so whoever signed up first in someone else's name keeps no foothold. False when
     * the account was verified meanwhile (then nothing changes).
     */
    replaceUnverified: (userId: string, passwordHash: string): Promise<boolean> =>
      engine.transaction(async (trx) => {
        const updated = await trx.updateTable('portal_users').set({ password_hash: passwordHash }).where('id', '=', userId).where('verified_at', 'is', null).executeTakeFirst()
        if (updated.numUpdatedRows !== 1n) return false
        await trx.deleteFrom('portal_sessions').where('user_id', '=', userId).execute()
        return true
      }),

    /**
     * A fresh emailed token (earlier ones of the same purpose stop working), or undefined when one was issued
     * less than `minIntervalMs` ago: nobody can have a mailbox flooded with links.
     */
    async issueToken(userId: string, purpose: TokenPurpose, ttlMs: number, minIntervalMs = 60_000): Promise<string | undefined> {
      const token = randomSecret()
      const at = now()
      const issued = await engine.transaction(async (trx) => {
        const recent = await trx.selectFrom('portal_tokens').select('token_hash').where('user_id', '=', userId).where('purpose', '=', purpose).where('created_at', '>', at - minIntervalMs).executeTakeFirst()
        if (recent) return false
        await trx.deleteFrom('portal_tokens').where('user_id', '=', userId).where('purpose', '=', purpose).execute()
        await trx.insertInto('portal_tokens').values({ token_hash: secretHash(token), user_id: userId, purpose, created_at: at, expires_at: at + ttlMs, used_at: null }).execute()
        return true
      })
      return issued ? token : undefined
    },

    /** Uses a token up (one statement, so two clicks cannot both succeed); the user's id, or undefined. */
    async consumeToken(token: string, purpose: TokenPurpose): Promise<string | undefined> {
      const at = now()
      const row = await db
        .updateTable('portal_tokens')
        .set({ used_at: at })
        .where('token_hash', '=', secretHash(token))
        .where('purpose', '=', purpose)
        .where('used_at', 'is', null)
        .where('expires_at', '>', at)
        .returning('user_id')
        .executeTakeFirst()
      return row?.user_id
    },

    tokenOwner,

    /** Whether a token would be accepted now (to show its form), without using it. */
    async tokenUsable(token: string, purpose: TokenPurpose): Promise<boolean> {
      return (await tokenOwner(token, purpose)) !== undefined
    },

    async createSession(userId: string, maxAgeMs: number, client: { userAgent: string | null; address: string | null }): Promise<string> {
      const id = randomSecret()
      const at = now()
      // What the account page shows of a session; a user agent is the client's to choose, so it is bounded.
      const userAgent = client.userAgent === null ? null : client.userAgent.slice(0, 300)
      await db.insertInto('portal_sessions').values({ id_hash: secretHash(id), user_id: userId, created_at: at, last_seen_at: at, expires_at: at + maxAgeMs, user_agent: userAgent, address: client.address }).execute()
      return id
    },

    /** Ends every session of a user, except `keepId` (the session id, not its hash) when given. */
    deleteSessionsOf: async (userId: string, keepId?: string): Promise<void> => {
      let query = db.deleteFrom('portal_sessions').where('user_id', '=', userId)
      if (keepId !== undefined) query = query.where('id_hash', '!=', secretHash(keepId))
      await query.execute()
    },

    async findSession(id: string): Promise<PortalSession | undefined> {
      const row = await db.selectFrom('portal_sessions').selectAll().where('id_hash', '=', secretHash(id)).executeTakeFirst()
      if (!row) return undefined
      return { userId: row.user_id, createdAt: Number(row.created_at), lastSeenAt: Number(row.last_seen_at), expiresAt: Number(row.expires_at) }
    },

    touchSession: async (id: string): Promise<void> => {
      await db.updateTable('portal_sessions').set({ last_seen_at: now() }).where('id_hash', '=', secretHash(id)).execute()
    },

    deleteSession: async (id: string): Promise<void> => {
      await db.deleteFrom('portal_sessions').where('id_hash', '=', secretHash(id)).execute()
    },

    /** Sessions past their absolute expiry, or idle for longer than `idleMs`. */
    purgeSessions: async (idleMs: number): Promise<void> => {
      const at = now()
      await db.deleteFrom('portal_sessions').where((eb) => eb.or([eb('expires_at', '<=', at), eb('last_seen_at', '<=', at - idleMs)])).execute()
    },

    /** Failed log-ins from one client address, for any email, since `since` (password spraying). */
    async failuresFromAddressSince(input: { address: string; since: number }): Promise<{ count: number; oldest: number | undefined }> {
      const row = await db
        .selectFrom('portal_login_failures')
        .select((eb) => [eb.fn.countAll<number | bigint | string>().as('count'), eb.fn.min('at').as('oldest')])
        .where('address', '=', input.address)
        .where('at', '>', input.since)
        .executeTakeFirstOrThrow()
      const count = Number(row.count)
      return { count, oldest: count === 0 ? undefined : Number(row.oldest) }
    },

    /** Forgets the failed log-ins of an email, from every address (after its password was reset). */
    clearFailures: async (email: string): Promise<void> => {
      await db.deleteFrom('portal_login_failures').where('email_key', '=', emailKey(email)).execute()
    },

    /** Failed log-ins for one address from one client since `since`: how many, and the oldest's time. */
    async failuresSince(input: { email: string; address: string; since: number }): Promise<{ count: number; oldest: number | undefined }> {
      const rows = await db
        .selectFrom('portal_login_failures')
        .select('at')
        .where('email_key', '=', emailKey(input.email))
        .where('address', '=', input.address)
        .where('at', '>', input.since)
        .orderBy('at')
        .execute()
      return { count: rows.length, oldest: rows.length === 0 ? undefined : Number(rows[0]!.at) }
    },

    recordFailure: async (input: { email: string; address: string }): Promise<void> => {
      await db.insertInto('portal_login_failures').values({ email_key: emailKey(input.email), address: input.address, at: now() }).execute()
    },

    purgeFailures: async (before: number): Promise<void> => {
      await db.deleteFrom('portal_login_failures').where('at', '<=', before).execute()
    },

    /** account id -> email of every portal user (for `accounts list`). */
    async emailsByAccount(): Promise<Map<string, string>> {
      const rows = await db.selectFrom('portal_users').select(['account_id', 'email']).execute()
      return new Map(rows.map((r) => [r.account_id, r.email]))
    },
  }
}

export type PortalRepository = ReturnType<typeof createPortalRepository>
