// Accounts and API keys. Used by the CLI (management) and by the authenticator (one look-up per request; remembered
// for a moment on PostgreSQL, see key-cache.ts). The changes, each with its audit entry, are in account-changes.ts
// (accounts) and api-key-changes.ts (keys).
import { PostgresAdapter, type Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import { kyselyEngine, type Engine } from '../../db/engine.js'
import { prepared } from '../../db/prepared.js'
import type { AccountRow, ApiKeyRow, Database } from '../../db/schema.js'
import { accountChanges, type ChangeContext } from './account-changes.js'
import { NotFoundError, planOf, toAccount, toKeyInfo, type Account, type ApiKeyInfo } from './account-rows.js'
import { apiKeyChanges } from './api-key-changes.js'
import { hashApiKey, type KeyEnvironment } from './api-keys.js'
import { announceKeyChange } from './key-changes.js'
import type { KeyCache } from './key-cache.js'
import { minuteOf } from './key-state.js'
import { decodeScopes } from './key-scopes.js'
import { keyScopeChanges } from './key-scope-changes.js'
import type { KeyOwner } from './key-owner.js'
import { isDatabaseUnavailable } from '../../db/unavailable.js'

export type { KeyOwner } from './key-owner.js'

export { KeyInputError, KeyLimitError } from './key-input.js'
export {
  AccountInputError,
  AccountStateError,
  KeyStateError,
  NotFoundError,
  type Account,
  type ApiKeyInfo,
} from './account-rows.js'

/** How many keys' last written minute a process remembers before starting over (a bound, not a limit). */
const LAST_USED_MEMORY = 100_000

interface AccountsRepositoryOptions {
  db: Kysely<Database>
  clock: Clock
  engine?: Engine
  /** Look-ups remembered by this process (PostgreSQL servers); emptied here by every change made here. */
  keyCache?: KeyCache
  /**
   * What other modules remove with a deleted account, in its transaction: the integrators' users and what lets them
   * in (integrators/account-owners.ts, removeOwnersOf). Passed in because the integrators module builds on this one;
   * required, so that no builder of this repository forgets it.
   */
  removeWithAccount: (trx: Kysely<Database>, accountId: string) => Promise<void>
}

export function createAccountsRepository({
  db,
  clock,
  engine = kyselyEngine(db),
  keyCache,
  removeWithAccount,
}: AccountsRepositoryOptions) {
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
        'api_keys.scopes',
        'accounts.plan',
        'accounts.per_minute',
        'accounts.per_day',
        'accounts.deleted_at',
        'accounts.suspended_at',
      ])
      .where('api_keys.key_hash', '=', p<string>('hash')),
  )
  // key id -> the last minute (ms) this process wrote as its last use: at most one write per key per minute.
  const lastUseWritten = new Map<string, number>()

  /** The key's row, if it exists and (when `accountId` is given) belongs to that account; NotFoundError otherwise. */
  async function keyRow(keyId: string, accountId?: string, executor: Kysely<Database> = db): Promise<ApiKeyRow> {
    const row = await executor.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst()
    // Another account's key is reported exactly like a key that does not exist.
    if (!row || (accountId !== undefined && row.account_id !== accountId))
      throw new NotFoundError(`no API key with id ${keyId}`)
    return row
  }

  /** The account's row, locked for the rest of the transaction on PostgreSQL (SQLite has one writer at a time). */
  async function lockedAccount(trx: Kysely<Database>, id: string): Promise<AccountRow> {
    let query = trx.selectFrom('accounts').selectAll().where('id', '=', id)
    if (onPostgres) query = query.forUpdate()
    const row = await query.executeTakeFirst()
    if (!row) throw new NotFoundError(`no account with id ${id}`)
    return row
  }

  async function getAccount(id: string): Promise<Account> {
    const row = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst()
    if (!row) throw new NotFoundError(`no account with id ${id}`)
    return toAccount(row)
  }

  const changes: ChangeContext = { clock, engine, changingKeys, keyRow, lockedAccount, removeWithAccount }
  return {
    getAccount,
    ...accountChanges(changes),
    ...apiKeyChanges(changes),
    ...keyScopeChanges(changes),

    async listAccounts(): Promise<Account[]> {
      const rows = await db.selectFrom('accounts').selectAll().orderBy('created_at').orderBy('id').execute()
      return rows.map(toAccount)
    },

    /** The names of these accounts, in one query (the portal's account switcher); a missing id is left out. */
    async accountNames(ids: readonly string[]): Promise<Map<string, string>> {
      if (ids.length === 0) return new Map()
      const rows = await db.selectFrom('accounts').select(['id', 'name']).where('id', 'in', ids).execute()
      return new Map(rows.map((row) => [row.id, row.name]))
    },

    async countAccounts(): Promise<number> {
      const { n } = await db
        .selectFrom('accounts')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
      return Number(n)
    },

    async getApiKey(keyId: string): Promise<ApiKeyInfo> {
      return toKeyInfo(await keyRow(keyId), clock.now())
    },

    async listApiKeys(accountId: string): Promise<ApiKeyInfo[]> {
      await getAccount(accountId)
      const rows = await db
        .selectFrom('api_keys')
        .selectAll()
        .where('account_id', '=', accountId)
        .orderBy('created_at')
        .orderBy('id')
        .execute()
      const at = clock.now()
      return rows.map((row) => toKeyInfo(row, at))
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
          // An unreachable database is one outage in the log, reported by the requests and loops it fails
          // (ops/outage-log.ts), not a line with a stack per key and minute here.
          if (!isDatabaseUnavailable(err)) log.warn({ err, keyId }, 'recording when the API key was last used failed')
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

type KeyOwnerRow = Pick<
  ApiKeyRow,
  'id' | 'account_id' | 'environment' | 'revoked_at' | 'expires_at' | 'grace_ends_at' | 'scopes'
> &
  Pick<AccountRow, 'plan' | 'per_minute' | 'per_day' | 'deleted_at' | 'suspended_at'>

function toKeyOwner(row: KeyOwnerRow | undefined): KeyOwner | undefined {
  if (!row) return undefined
  return {
    keyId: row.id,
    accountId: row.account_id,
    environment: row.environment as KeyEnvironment,
    lifetime: { revokedAt: row.revoked_at, expiresAt: row.expires_at, graceEndsAt: row.grace_ends_at },
    scopes: decodeScopes(row.scopes),
    accountDeletedAt: row.deleted_at,
    accountSuspendedAt: row.suspended_at,
    quota: planOf(row).quota,
    plan: row.plan,
  }
}

export type AccountsRepository = ReturnType<typeof createAccountsRepository>
