// The changes to API keys (create, roll, revoke, a new expiry), each in one transaction with its audit entry, as the
// accounts' changes in account-changes.ts (whose context they share): one service for the CLI, the portal and the
// console.
import type { Kysely } from 'kysely'
import type { AccountRow, ApiKeyRow, Database } from '../../db/schema.js'
import { writeAudit } from '../audit/audit.repository.js'
import type { AuditActor } from '../audit/audit-event.js'
import type { ChangeContext } from './account-changes.js'
import { AccountStateError, KeyStateError, toKeyInfo, type ApiKeyInfo } from './account-rows.js'
import { displayPrefix, generateApiKey, hashApiKey, newId, type KeyEnvironment } from './api-keys.js'
import { checkExpiry, checkGraceSeconds, checkKeyName, KeyLimitError } from './key-input.js'
import { keyState } from './key-state.js'
import { checkScopes, encodeScopes, type Scope } from './key-scopes.js'
import { keyData } from './account-events.js'
import { recordEvent } from '../webhooks/record-event.js'

/**
 * A new key (created or rolled) only for an account that can use it: a suspended account's keys would be refused
 * (a suspension is lifted by reactivating, not worked around), a deleted account's for good.
 */
function mayHaveNewKeys(account: Pick<AccountRow, 'id' | 'suspended_at' | 'deleted_at'>): void {
  if (account.deleted_at !== null) throw new AccountStateError(`account ${account.id} was deleted; it gets no new key`)
  if (account.suspended_at !== null)
    throw new AccountStateError(`account ${account.id} is suspended; it gets no new key until it is reactivated`)
}

export function apiKeyChanges({ clock, engine, changingKeys, keyRow, lockedAccount }: ChangeContext) {
  const iso = (ms: number) => new Date(ms).toISOString()

  async function insertKey(
    input: {
      accountId: string
      environment: KeyEnvironment
      name: string | null
      expiresAt: string | null
      scopes: readonly Scope[]
    },
    trx: Kysely<Database>,
  ) {
    const key = generateApiKey(input.environment)
    const row: ApiKeyRow = {
      id: newId('key'),
      account_id: input.accountId,
      key_hash: hashApiKey(key),
      key_prefix: displayPrefix(key),
      environment: input.environment,
      created_at: iso(clock.now()),
      revoked_at: null,
      name: input.name,
      last_used_at: null,
      expires_at: input.expiresAt,
      rolled_at: null,
      replaced_by: null,
      grace_ends_at: null,
      scopes: encodeScopes(input.scopes),
    }
    await trx.insertInto('api_keys').values(row).execute()
    return { ...toKeyInfo(row, clock.now()), key }
  }

  /** Keys of the account that work now (not revoked, not expired, not rolled past their grace period). */
  async function countActiveKeys(accountId: string, trx: Kysely<Database>): Promise<number> {
    const rows = await trx
      .selectFrom('api_keys')
      .select(['revoked_at', 'expires_at', 'grace_ends_at'])
      .where('account_id', '=', accountId)
      .where('revoked_at', 'is', null)
      .execute()
    const at = clock.now()
    // The authenticator's own rule (keyState), not a second one in SQL.
    return rows.filter(
      (r) =>
        keyState({ revokedAt: r.revoked_at, expiresAt: r.expires_at, graceEndsAt: r.grace_ends_at }, at) === 'active',
    ).length
  }

  return {
    /**
     * Creates a key and returns its secret: the only time the secret exists outside the caller (the audit entry
     * has its id and display prefix, never the secret). `name` is trimmed (blank: no name); `expiresAt` is an ISO
     * instant in the future. `maxActive`: at most that many active keys (KeyLimitError), counted in the insert's
     * transaction: SQLite runs one writer at a time, and on PostgreSQL the account's row is locked first, so two
     * creates for one account cannot both see room for one more. `scopes`: what the key may do (none given: every
     * scope; an unknown scope or none at all is a KeyInputError naming the valid ones).
     */
    async createApiKey(input: {
      accountId: string
      environment: KeyEnvironment
      name?: string
      expiresAt?: string
      scopes?: readonly string[]
      maxActive?: number
      actor: AuditActor
    }): Promise<ApiKeyInfo & { key: string }> {
      const name = checkKeyName(input.name)
      const expiresAt = checkExpiry(input.expiresAt, clock.now())
      const scopes = checkScopes(input.scopes)
      const { maxActive } = input
      return engine.transaction(async (trx) => {
        mayHaveNewKeys(await lockedAccount(trx, input.accountId))
        if (maxActive !== undefined) {
          const active = await countActiveKeys(input.accountId, trx)
          if (active >= maxActive) throw new KeyLimitError(active, maxActive)
        }
        const created = await insertKey(
          { accountId: input.accountId, environment: input.environment, name, expiresAt, scopes },
          trx,
        )
        await writeAudit(trx, clock.now(), input.actor, {
          action: 'key.created',
          accountId: input.accountId,
          target: { kind: 'key', id: created.id },
          changes: { after: { name, environment: created.environment, prefix: created.prefix, expiresAt, scopes } },
        })
        const data = keyData(created)
        await recordEvent(trx, { accountId: input.accountId, type: 'key.created', data, at: clock.now() })
        return created
      })
    },

    /**
     * Rolls a key: a new secret with the same name, environment, scopes and expiry instant (rolling never extends a
     * key's life, nor what it may do), while the old key keeps working for `graceSeconds` (0..604800) and is refused
     * after. Only an active key that was not rolled before can be rolled (roll its replacement instead).
     */
    async rollApiKey(input: {
      keyId: string
      graceSeconds: number
      accountId?: string
      actor: AuditActor
    }): Promise<{ previous: ApiKeyInfo; created: ApiKeyInfo & { key: string } }> {
      const graceSeconds = checkGraceSeconds(input.graceSeconds)
      return changingKeys('roll', async (trx) => {
        const old = await keyRow(input.keyId, input.accountId, trx)
        const at = clock.now()
        mayHaveNewKeys(await lockedAccount(trx, old.account_id))
        if (old.replaced_by !== null)
          throw new KeyStateError(
            `API key ${old.id} was already rolled; roll its replacement ${old.replaced_by} instead`,
          )
        const state = keyState(
          { revokedAt: old.revoked_at, expiresAt: old.expires_at, graceEndsAt: old.grace_ends_at },
          at,
        )
        if (state !== 'active')
          throw new KeyStateError(`API key ${old.id} is ${state}; only an active key can be rolled (create a new one)`)
        const scopes = toKeyInfo(old, at).scopes
        const created = await insertKey(
          {
            accountId: old.account_id,
            environment: old.environment as KeyEnvironment,
            name: old.name,
            expiresAt: old.expires_at,
            scopes,
          },
          trx,
        )
        const rolled = { rolled_at: iso(at), replaced_by: created.id, grace_ends_at: iso(at + graceSeconds * 1000) }
        // `replaced_by is null` keeps two concurrent rolls of one key from both succeeding.
        const result = await trx
          .updateTable('api_keys')
          .set(rolled)
          .where('id', '=', old.id)
          .where('replaced_by', 'is', null)
          .executeTakeFirst()
        if (result.numUpdatedRows === 0n) throw new KeyStateError(`API key ${old.id} was already rolled`)
        await writeAudit(trx, at, input.actor, {
          action: 'key.rolled',
          accountId: old.account_id,
          target: { kind: 'key', id: old.id },
          changes: {
            previousKeyId: old.id,
            newKeyId: created.id,
            prefix: created.prefix,
            graceSeconds,
            graceEndsAt: rolled.grace_ends_at,
            scopes,
          },
        })
        const replaces = { id: old.id, prefix: old.key_prefix, graceEndsAt: rolled.grace_ends_at }
        const data = { ...keyData(created), replaces }
        await recordEvent(trx, { accountId: old.account_id, type: 'key.rolled', data, at })
        return { previous: toKeyInfo({ ...old, ...rolled }, at), created }
      })
    },

    /**
     * Gives an active key a new expiry instant (an ISO instant in the future), or none (`null`: it never expires).
     * A rolled key is refused: its end is its grace period (roll's rule), and its replacement is the key to change.
     * Announced like a revocation, so every instance's key cache forgets the old end at once. The same instant
     * again changes nothing and writes no entry.
     */
    async setKeyExpiry(input: {
      keyId: string
      expiresAt: string | null
      accountId?: string
      actor: AuditActor
    }): Promise<ApiKeyInfo> {
      const expiresAt = checkExpiry(input.expiresAt ?? undefined, clock.now())
      return changingKeys('expiry', async (trx) => {
        const row = await keyRow(input.keyId, input.accountId, trx)
        const at = clock.now()
        if (row.replaced_by !== null)
          throw new KeyStateError(
            `API key ${row.id} was rolled; its end is its grace period (${row.grace_ends_at}); change the expiry of ` +
              `its replacement ${row.replaced_by} instead`,
          )
        const state = keyState(
          { revokedAt: row.revoked_at, expiresAt: row.expires_at, graceEndsAt: row.grace_ends_at },
          at,
        )
        if (state !== 'active')
          throw new KeyStateError(
            `API key ${row.id} is ${state}; only an active key can be given a new expiry (create a new one)`,
          )
        const instant = (v: string | null) => (v === null ? null : Date.parse(v))
        if (instant(row.expires_at) === instant(expiresAt)) return toKeyInfo(row, at)
        // The conditions repeat the checks in the update itself: a concurrent roll or revocation wins, not both.
        const result = await trx
          .updateTable('api_keys')
          .set({ expires_at: expiresAt })
          .where('id', '=', row.id)
          .where('revoked_at', 'is', null)
          .where('replaced_by', 'is', null)
          .executeTakeFirst()
        if (result.numUpdatedRows === 0n)
          throw new KeyStateError(`API key ${row.id} was rolled or revoked meanwhile; its expiry was not changed`)
        await writeAudit(trx, at, input.actor, {
          action: 'key.expiry_changed',
          accountId: row.account_id,
          target: { kind: 'key', id: row.id },
          changes: {
            before: { expiresAt: row.expires_at },
            after: { expiresAt },
            name: row.name,
            prefix: row.key_prefix,
          },
        })
        return toKeyInfo({ ...row, expires_at: expiresAt }, at)
      })
    },

    /** Revokes a key (refused from the next request on); revoking a revoked key keeps the first revocation time. */
    async revokeApiKey(keyId: string, options: { accountId?: string; actor: AuditActor }): Promise<ApiKeyInfo> {
      return changingKeys('revoke', async (trx) => {
        const row = await keyRow(keyId, options.accountId, trx)
        if (row.revoked_at !== null) return toKeyInfo(row, clock.now())
        const at = clock.now()
        const result = await trx
          .updateTable('api_keys')
          .set({ revoked_at: iso(at) })
          .where('id', '=', keyId)
          .where('revoked_at', 'is', null)
          .executeTakeFirst()
        if (result.numUpdatedRows === 0n) return toKeyInfo(await keyRow(keyId, options.accountId, trx), at)
        await writeAudit(trx, at, options.actor, {
          action: 'key.revoked',
          accountId: row.account_id,
          target: { kind: 'key', id: keyId },
          changes: { name: row.name, prefix: row.key_prefix },
        })
        const revoked = toKeyInfo({ ...row, revoked_at: iso(at) }, at)
        await recordEvent(trx, { accountId: row.account_id, type: 'key.revoked', data: keyData(revoked), at })
        return revoked
      })
    },
  }
}
