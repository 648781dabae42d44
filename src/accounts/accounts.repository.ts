// Accounts and API keys. Used by the CLI (management) and by the authenticator (one look-up per request; remembered
// for a moment on PostgreSQL, see key-cache.ts).
import { PostgresAdapter, type Kysely } from 'kysely'
import type { Clock } from '../clock.js'
import { kyselyEngine, type Engine } from '../db/engine.js'
import { prepared } from '../db/prepared.js'
import type { AccountRow, ApiKeyRow, Database } from '../db/schema.js'
import { displayPrefix, generateApiKey, hashApiKey, newId, type KeyEnvironment } from './api-keys.js'
import { announceKeyChange } from './key-changes.js'
import type { KeyCache } from './key-cache.js'
import { keyState, minuteOf, type KeyLifetime, type KeyState } from './key-state.js'
import { checkExpiry, checkGraceSeconds, checkKeyName, KeyLimitError } from './key-input.js'
import { planFigures, quotaOf, type Plan, type Quota } from './plans.js'

export interface Account {
  id: string
  name: string
  plan: Plan
  perMinute: number | null
  perDay: number | null
  /** The quota in force (the plan's, or the enterprise figures). */
  quota: Quota
  createdAt: string
}

export interface ApiKeyInfo {
  id: string
  accountId: string
  name: string | null
  prefix: string
  environment: KeyEnvironment
  createdAt: string
  /** The start of the last minute the key was used in (minute precision). */
  lastUsedAt: string | null
  expiresAt: string | null
  revokedAt: string | null
  /** Set once the key was rolled: when, the key that replaced it, and when its grace period ends. */
  rolledAt: string | null
  replacedBy: string | null
  graceEndsAt: string | null
  /** Computed with the clock when read. */
  state: KeyState
}

/** The result of looking a presented secret up: enough to authenticate and, later, to rate-limit. */
export interface KeyOwner {
  keyId: string
  accountId: string
  environment: KeyEnvironment
  /** What decides whether the key is still usable (see `refusalReason`). */
  lifetime: KeyLifetime
  /** Set when the key's account was deleted: every key of it is refused (null or absent: not deleted). */
  accountDeletedAt?: string | null
  /** The account's quota as of now: a plan change applies from the next request on. */
  quota: Quota
}

export { KeyInputError, KeyLimitError } from './key-input.js'

export class NotFoundError extends Error {}

/** The name a deleted account keeps instead of the one it had (often its owner's address). */
export const DELETED_ACCOUNT_NAME = 'deleted account'
/** The key cannot do that in its state (rolling a revoked, expired or already rolled key). */
export class KeyStateError extends Error {}

/** An account row's plan figures (stored as int8: bigint on PostgreSQL) and the quota they give. */
function planOf(row: Pick<AccountRow, 'plan' | 'per_minute' | 'per_day'>) {
  const perMinute = row.per_minute === null ? null : Number(row.per_minute)
  const perDay = row.per_day === null ? null : Number(row.per_day)
  return { perMinute, perDay, quota: quotaOf({ plan: row.plan, perMinute, perDay }) }
}

function toAccount(row: AccountRow): Account {
  return { id: row.id, name: row.name, plan: row.plan as Plan, ...planOf(row), createdAt: row.created_at }
}

function toKeyInfo(row: ApiKeyRow, now: number): ApiKeyInfo {
  const lifetime = { revokedAt: row.revoked_at, expiresAt: row.expires_at, graceEndsAt: row.grace_ends_at }
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    prefix: row.key_prefix,
    environment: row.environment as KeyEnvironment,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    rolledAt: row.rolled_at,
    replacedBy: row.replaced_by,
    graceEndsAt: row.grace_ends_at,
    state: keyState(lifetime, now),
  }
}

/** How many keys' last written minute a process remembers before starting over (a bound, not a limit). */
const LAST_USED_MEMORY = 100_000

export interface AccountsRepositoryOptions {
  db: Kysely<Database>
  clock: Clock
  engine?: Engine
  /** Look-ups remembered by this process (PostgreSQL servers); emptied here by every change made here. */
  keyCache?: KeyCache
}

export function createAccountsRepository({ db, clock, engine = kyselyEngine(db), keyCache }: AccountsRepositoryOptions) {
  const now = () => new Date(clock.now()).toISOString()
  // On PostgreSQL every change to what `findKeyOwner` returns is announced in its own transaction, whoever makes
  // it (a server, the CLI), so that every server's key cache drops it (key-changes.ts).
  const onPostgres = db.getExecutor().adapter instanceof PostgresAdapter
  const announces = onPostgres
  /** Runs a change to keys or accounts in a transaction that announces it, then empties this process's cache. */
  async function changingKeys<T>(what: string, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    const result = await engine.transaction(async (trx) => {
      const done = await work(trx)
      if (announces) await announceKeyChange(trx, what)
      return done
    })
    keyCache?.invalidate()
    return result
  }
  // Every authenticated request runs this one.
  const keyOwnerQuery = prepared({ db, engine }, (qb, _: null, p) =>
    qb
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .select([
        'api_keys.id',
        'api_keys.account_id',
        'api_keys.environment',
        'api_keys.revoked_at',
        'api_keys.expires_at',
        'api_keys.grace_ends_at',
        'accounts.plan',
        'accounts.per_minute',
        'accounts.per_day',
        'accounts.deleted_at',
      ])
      .where('api_keys.key_hash', '=', p<string>('hash')),
  )
  // key id -> the last minute (ms) this process wrote as its last use: at most one write per key per minute.
  const lastUseWritten = new Map<string, number>()

  /** The key's row, if it exists and (when `accountId` is given) belongs to that account; NotFoundError otherwise. */
  async function keyRow(keyId: string, accountId?: string, executor: Kysely<Database> = db): Promise<ApiKeyRow> {
    const row = await executor.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst()
    // Another account's key is reported exactly like a key that does not exist.
    if (!row || (accountId !== undefined && row.account_id !== accountId)) throw new NotFoundError(`no API key with id ${keyId}`)
    return row
  }

  async function insertKey(input: { accountId: string; environment: KeyEnvironment; name: string | null; expiresAt: string | null }, executor: Kysely<Database>) {
    const key = generateApiKey(input.environment)
    const row: ApiKeyRow = {
      id: newId('key'),
      account_id: input.accountId,
      key_hash: hashApiKey(key),
      key_prefix: displayPrefix(key),
      environment: input.environment,
      created_at: now(),
      revoked_at: null,
      name: input.name,
      last_used_at: null,
      expires_at: input.expiresAt,
      rolled_at: null,
      replaced_by: null,
      grace_ends_at: null,
    }
    await executor.insertInto('api_keys').values(row).execute()
    return { ...toKeyInfo(row, clock.now()), key }
  }

  /** Keys of the account that work now (not revoked, not expired, not rolled past their grace period). */
  async function countActiveKeys(accountId: string, executor: Kysely<Database>): Promise<number> {
    const rows = await executor.selectFrom('api_keys').select(['revoked_at', 'expires_at', 'grace_ends_at']).where('account_id', '=', accountId).where('revoked_at', 'is', null).execute()
    const at = clock.now()
    // The authenticator's own rule (keyState), not a second one in SQL.
    return rows.filter((r) => keyState({ revokedAt: r.revoked_at, expiresAt: r.expires_at, graceEndsAt: r.grace_ends_at }, at) === 'active').length
  }

  async function getAccount(id: string): Promise<Account> {
    const row = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst()
    if (!row) throw new NotFoundError(`no account with id ${id}`)
    return toAccount(row)
  }

  return {
    getAccount,

    async createAccount(input: { name: string; plan: string; perMinute?: number; perDay?: number }): Promise<Account> {
      const figures = planFigures(input.plan, input.perMinute, input.perDay)
      const row: AccountRow = { id: newId('acct'), name: input.name, plan: figures.plan, per_minute: figures.perMinute, per_day: figures.perDay, created_at: now(), deleted_at: null }
      await db.insertInto('accounts').values(row).execute()
      return toAccount(row)
    },

    async listAccounts(): Promise<Account[]> {
      const rows = await db.selectFrom('accounts').selectAll().orderBy('created_at').orderBy('id').execute()
      return rows.map(toAccount)
    },

    async countAccounts(): Promise<number> {
      const { n } = await db.selectFrom('accounts').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()
      return Number(n)
    },

    async setPlan(input: { id: string; plan: string; perMinute?: number; perDay?: number }): Promise<Account> {
      const figures = planFigures(input.plan, input.perMinute, input.perDay)
      const result = await changingKeys('plan', (trx) =>
        trx.updateTable('accounts').set({ plan: figures.plan, per_minute: figures.perMinute, per_day: figures.perDay }).where('id', '=', input.id).executeTakeFirst(),
      )
      if (result.numUpdatedRows === 0n) throw new NotFoundError(`no account with id ${input.id}`)
      return getAccount(input.id)
    },

    /**
     * Creates a key and returns its secret: the only time the secret exists outside the caller. `name` is
     * trimmed (blank: no name); `expiresAt` is an ISO instant in the future.
     */
    async createApiKey(input: { accountId: string; environment: KeyEnvironment; name?: string; expiresAt?: string; maxActive?: number }): Promise<ApiKeyInfo & { key: string }> {
      const name = checkKeyName(input.name)
      const expiresAt = checkExpiry(input.expiresAt, clock.now())
      await getAccount(input.accountId)
      const { maxActive } = input
      const key = { accountId: input.accountId, environment: input.environment, name, expiresAt }
      if (maxActive === undefined) return insertKey(key, db)
      // `maxActive`: at most that many active keys (KeyLimitError). Counted in the insert's transaction: SQLite
      // runs one writer at a time, and on PostgreSQL the account's row is locked first, so two creates for one
      // account cannot both see room for one more.
      return engine.transaction(async (trx) => {
        if (onPostgres) await trx.selectFrom('accounts').select('id').where('id', '=', input.accountId).forUpdate().execute()
        const active = await countActiveKeys(input.accountId, trx)
        if (active >= maxActive) throw new KeyLimitError(active, maxActive)
        return insertKey(key, trx)
      })
    },

    async getApiKey(keyId: string): Promise<ApiKeyInfo> {
      return toKeyInfo(await keyRow(keyId), clock.now())
    },

    async listApiKeys(accountId: string): Promise<ApiKeyInfo[]> {
      await getAccount(accountId)
      const rows = await db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute()
      const at = clock.now()
      return rows.map((row) => toKeyInfo(row, at))
    },

    /**
     * Rolls a key: a new secret with the same name, environment and expiry instant (rolling never extends a
     * key's life), while the old key keeps working for `graceSeconds` (0..604800) and is refused after.
     * Only an active key that was not rolled before can be rolled (roll its replacement instead).
     */
    async rollApiKey(input: { keyId: string; graceSeconds: number; accountId?: string }): Promise<{ previous: ApiKeyInfo; created: ApiKeyInfo & { key: string } }> {
      const graceSeconds = checkGraceSeconds(input.graceSeconds)
      return changingKeys('roll', async (trx) => {
        const old = await keyRow(input.keyId, input.accountId, trx)
        const at = clock.now()
        if (old.replaced_by !== null) throw new KeyStateError(`API key ${old.id} was already rolled; roll its replacement ${old.replaced_by} instead`)
        const state = keyState({ revokedAt: old.revoked_at, expiresAt: old.expires_at, graceEndsAt: old.grace_ends_at }, at)
        if (state !== 'active') throw new KeyStateError(`API key ${old.id} is ${state}; only an active key can be rolled (create a new one)`)
        const created = await insertKey({ accountId: old.account_id, environment: old.environment as KeyEnvironment, name: old.name, expiresAt: old.expires_at }, trx)
        const rolled = { rolled_at: new Date(at).toISOString(), replaced_by: created.id, grace_ends_at: new Date(at + graceSeconds * 1000).toISOString() }
        // `replaced_by is null` keeps two concurrent rolls of one key from both succeeding.
        const result = await trx.updateTable('api_keys').set(rolled).where('id', '=', old.id).where('replaced_by', 'is', null).executeTakeFirst()
        if (result.numUpdatedRows === 0n) throw new KeyStateError(`API key ${old.id} was already rolled`)
        return { previous: toKeyInfo({ ...old, ...rolled }, at), created }
      })
    },

    /** Revokes a key (refused from the next request on); revoking a revoked key keeps the first revocation time. */
    async revokeApiKey(keyId: string, options: { accountId?: string } = {}): Promise<ApiKeyInfo> {
      const row = await keyRow(keyId, options.accountId)
      if (row.revoked_at !== null) return toKeyInfo(row, clock.now())
      const revokedAt = now()
      await changingKeys('revoke', (trx) => trx.updateTable('api_keys').set({ revoked_at: revokedAt }).where('id', '=', keyId).where('revoked_at', 'is', null).execute())
      return toKeyInfo({ ...row, revoked_at: revokedAt }, clock.now())
    },

    /**
     * Deletes an account (the portal's settings page, later an operator), in one transaction that announces it:
     * every key is refused from the next request on (with a message of its own, and revoked), the account row
     * keeps no email (its name is replaced; `deleted_at` set), and its portal user goes with its sessions,
     * emailed links and failed log-ins, so the address can sign up again. Pets, orders, messages and stored
     * idempotent responses are removed later, in batches, by the purge (account-purge.ts). Deleting a deleted
     * account changes nothing.
     */
    async deleteAccount(accountId: string): Promise<{ deletedAt: string }> {
      const at = now()
      return changingKeys('delete', async (trx) => {
        const account = await trx.selectFrom('accounts').select('deleted_at').where('id', '=', accountId).executeTakeFirst()
        if (!account) throw new NotFoundError(`no account with id ${accountId}`)
        if (account.deleted_at !== null) return { deletedAt: account.deleted_at }
        await trx.updateTable('accounts').set({ deleted_at: at, name: DELETED_ACCOUNT_NAME }).where('id', '=', accountId).execute()
        await trx.updateTable('api_keys').set({ revoked_at: at }).where('account_id', '=', accountId).where('revoked_at', 'is', null).execute()
        const users = trx.selectFrom('portal_users').select('id').where('account_id', '=', accountId)
        await trx.deleteFrom('portal_tokens').where('user_id', 'in', users).execute()
        await trx.deleteFrom('portal_sessions').where('user_id', 'in', users).execute()
        await trx.deleteFrom('portal_login_failures').where('email_key', 'in', trx.selectFrom('portal_users').select('email_key').where('account_id', '=', accountId)).execute()
        await trx.deleteFrom('portal_users').where('account_id', '=', accountId).execute()
        return { deletedAt: at }
      })
    },

    /**
     * Records that a key was used now, with minute precision: at most one UPDATE per key per minute per process
     * (and none when another instance already wrote this minute). Not awaited by requests; never rejects.
     */
    markUsed(keyId: string, log: { warn: (obj: object, msg: string) => void }): void {
      const minute = minuteOf(clock.now())
      if ((lastUseWritten.get(keyId) ?? -Infinity) >= minute) return
      if (lastUseWritten.size >= LAST_USED_MEMORY) lastUseWritten.clear()
      lastUseWritten.set(keyId, minute)
      const at = new Date(minute).toISOString()
      engine
        .write((executor) =>
          executor
            .updateTable('api_keys')
            .set({ last_used_at: at })
            .where('id', '=', keyId)
            .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
            .execute(),
        )
        .catch((err: unknown) => {
          // Try again on the key's next request.
          if (lastUseWritten.get(keyId) === minute) lastUseWritten.delete(keyId)
          log.warn({ err, keyId }, 'recording when the API key was last used failed')
        })
    },

    async findKeyOwner(secret: string): Promise<KeyOwner | undefined> {
      const hash = hashApiKey(secret)
      const cached = keyCache?.get(hash)
      if (cached !== undefined) return cached
      const generation = keyCache?.generation()
      const owner = toKeyOwner(await keyOwnerQuery.first(null, { hash }))
      // Unknown keys are not remembered: a key created a moment ago must work at once.
      if (owner !== undefined && generation !== undefined) keyCache!.set(hash, owner, generation)
      return owner
    },
  }
}

type KeyOwnerRow = Pick<ApiKeyRow, 'id' | 'account_id' | 'environment' | 'revoked_at' | 'expires_at' | 'grace_ends_at'> & Pick<AccountRow, 'plan' | 'per_minute' | 'per_day' | 'deleted_at'>

function toKeyOwner(row: KeyOwnerRow | undefined): KeyOwner | undefined {
  if (!row) return undefined
  return {
    keyId: row.id,
    accountId: row.account_id,
    environment: row.environment as KeyEnvironment,
    lifetime: { revokedAt: row.revoked_at, expiresAt: row.expires_at, graceEndsAt: row.grace_ends_at },
    accountDeletedAt: row.deleted_at,
    quota: planOf(row).quota,
  }
}

export type AccountsRepository = ReturnType<typeof createAccountsRepository>
