// The portal's own tables: users (each linked to the account made at sign-up), emailed single-use tokens, and
// (portal-sessions.ts) server-side sessions and failed log-ins. Tokens and session ids are stored only as hashes.
import type { Kysely } from 'kysely'
import type { AccountsRepository } from '../accounts/accounts.repository.js'
import { newId } from '../accounts/api-keys.js'
import { issueLinkToken, LINK_MIN_INTERVAL_MS, voidLinkTokens, type LinkPurpose } from './link-tokens.js'
import type { Clock } from '../../kernel/clock.js'
import { kyselyEngine, type Engine } from '../../db/engine.js'
import type { Database, PortalUsersTable } from '../../db/schema.js'
import { emailKeyOf } from '../../kernel/email-address.js'
import { secretHash } from '../../kernel/secrets.js'
import { UNSET_PASSWORD } from '../../kernel/passwords.js'
import type { AuditActor } from '../audit/audit-event.js'
import { integratorActor, passwordChanged } from './actor.js'
import { linkUses } from './link-uses.js'
import { portalSessionsStore } from './integrator-sessions.js'

export type PortalUser = PortalUsersTable
type TokenPurpose = LinkPurpose

/** The key an address is unique by: normalised (IDNA domain) and lower-cased, see email-address.ts. */
const emailKey = emailKeyOf

/** Thrown inside a sign-up's transaction when the address was taken meanwhile: it undoes the account too. */
class AddressTaken extends Error {}

export function createPortalRepository({
  db,
  clock,
  accounts,
  engine = kyselyEngine(db),
  onUserCreated,
}: {
  db: Kysely<Database>
  clock: Clock
  accounts: AccountsRepository
  engine?: Engine
  /** In the sign-up's transaction: the new user becomes its account's owner (the teams module's table). */
  onUserCreated?: (trx: Kysely<Database>, user: PortalUser) => Promise<void>
}) {
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
    findUserByEmail: (email: string): Promise<PortalUser | undefined> =>
      db.selectFrom('portal_users').selectAll().where('email_key', '=', emailKey(email)).executeTakeFirst(),
    findUser: (id: string): Promise<PortalUser | undefined> =>
      db.selectFrom('portal_users').selectAll().where('id', '=', id).executeTakeFirst(),

    /**
     * Creates the account (plan free) and its portal user; undefined if the address took an account meanwhile.
     * `email` is an address parseEmailAddress accepted (normalised).
     */
    async createUser(input: {
      email: string
      passwordHash: string
      address?: string
      /** Free unless an operator chose another (invitations.ts). */
      plan?: string
      /** Whoever made it: the integrator signing up unless an operator did (invitations.ts). */
      actor?: AuditActor
    }): Promise<PortalUser | undefined> {
      const email = input.email
      const accountId = newId('acct')
      const user: PortalUser = {
        id: newId('user'),
        account_id: accountId,
        email,
        email_key: emailKey(email),
        password_hash: input.passwordHash,
        verified_at: null,
        created_at: new Date(now()).toISOString(),
        password_changed_at: null,
      }
      try {
        // The account, its user and the audit entry in one transaction: a lost race leaves none of them.
        await accounts.createAccount({
          id: accountId,
          name: email,
          plan: input.plan ?? 'free',
          actor: input.actor ?? integratorActor(user, input.address),
          within: async (trx) => {
            const inserted = await trx
              .insertInto('portal_users')
              .values(user)
              .onConflict((oc) => oc.column('email_key').doNothing())
              .executeTakeFirst()
            if (inserted.numInsertedOrUpdatedRows !== 1n) throw new AddressTaken()
            await onUserCreated?.(trx, user)
          },
        })
        return user
      } catch (error) {
        // Another sign-up took the address between our look-up and this insert: its account is the one.
        if (error instanceof AddressTaken) return undefined
        throw error
      }
    },

    /**
     * A new sign-up for an address whose account is still unverified: the newest sign-up's password wins, every
     * session of the account ends and every pending link dies (a change of address asked for by whoever signed up
     * first goes with it), so whoever signed up first in someone else's name keeps no foothold. A verify link
     * issued within the last minute stays: it went to this same address, and no second one is mailed within a
     * minute. False when the account was verified meanwhile, or was made by an operator (then nothing changes).
     */
    replaceUnverified: (userId: string, passwordHash: string, address?: string): Promise<boolean> =>
      engine.transaction(async (trx) => {
        const at = now()
        const updated = await trx
          .updateTable('portal_users')
          .set({ password_hash: passwordHash })
          .where('id', '=', userId)
          .where('verified_at', 'is', null)
          // An account an operator made for this address is not a sign-up's to take over (invitations.ts).
          .where('password_hash', '!=', UNSET_PASSWORD)
          .executeTakeFirst()
        if (updated.numUpdatedRows !== 1n) return false
        await trx.deleteFrom('portal_sessions').where('user_id', '=', userId).execute()
        await voidLinkTokens(trx, userId, at - LINK_MIN_INTERVAL_MS)
        await passwordChanged(trx, at, userId, address, 'sign_up')
        return true
      }),

    /**
     * A fresh emailed token (earlier ones of the same purpose stop working), or undefined when one was issued
     * less than `minIntervalMs` ago: nobody can have a mailbox flooded with links (link-tokens.ts).
     */
    async issueToken(
      userId: string,
      purpose: TokenPurpose,
      ttlMs: number,
      minIntervalMs = LINK_MIN_INTERVAL_MS,
    ): Promise<string | undefined> {
      return issueLinkToken(engine, { userId, purpose, ttlMs, at: now(), minIntervalMs })
    },

    tokenOwner,

    /** Whether a token would be accepted now (to show its form), without using it. */
    async tokenUsable(token: string, purpose: TokenPurpose): Promise<boolean> {
      return (await tokenOwner(token, purpose)) !== undefined
    },

    /** Opening a verify or a reset link (link-uses.ts). */
    ...linkUses({ engine, clock }),

    /** Sessions and failed log-ins (portal-sessions.ts). */
    ...portalSessionsStore({ db, clock }),
  }
}

export type PortalRepository = ReturnType<typeof createPortalRepository>
