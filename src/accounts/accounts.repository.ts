// Accounts and API keys. Used by the CLI (management) and by the authenticator (one lookup per request).
import type { Kysely } from 'kysely'
import type { Clock } from '../clock.js'
import { kyselyEngine, type Engine } from '../db/engine.js'
import { prepared } from '../db/prepared.js'
import type { AccountRow, ApiKeyRow, Database } from '../db/schema.js'
import { displayPrefix, generateApiKey, hashApiKey, newId, type KeyEnvironment } from './api-keys.js'
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
  prefix: string
  environment: KeyEnvironment
  createdAt: string
  revokedAt: string | null
}

/** The result of looking a presented secret up: enough to authenticate and, later, to rate-limit. */
export interface KeyOwner {
  keyId: string
  accountId: string
  environment: KeyEnvironment
  revoked: boolean
  /** The account's quota as of now: a plan change applies from the next request on. */
  quota: Quota
}

export class NotFoundError extends Error {}

function toAccount(row: AccountRow): Account {
  const perMinute = row.per_minute === null ? null : Number(row.per_minute)
  const perDay = row.per_day === null ? null : Number(row.per_day)
  return { id: row.id, name: row.name, plan: row.plan as Plan, perMinute, perDay, quota: quotaOf({ plan: row.plan, perMinute, perDay }), createdAt: row.created_at }
}

const toKeyInfo = (row: ApiKeyRow): ApiKeyInfo => ({
  id: row.id,
  accountId: row.account_id,
  prefix: row.key_prefix,
  environment: row.environment as KeyEnvironment,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
})

export function createAccountsRepository({ db, clock, engine = kyselyEngine(db) }: { db: Kysely<Database>; clock: Clock; engine?: Engine }) {
  const now = () => new Date(clock.now()).toISOString()
  // Every authenticated request runs this one.
  const keyOwnerQuery = prepared({ db, engine }, (qb, _: null, p) =>
    qb
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .select(['api_keys.id', 'api_keys.account_id', 'api_keys.environment', 'api_keys.revoked_at', 'accounts.plan', 'accounts.per_minute', 'accounts.per_day'])
      .where('api_keys.key_hash', '=', p<string>('hash')),
  )

  async function getAccount(id: string): Promise<Account> {
    const row = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst()
    if (!row) throw new NotFoundError(`no account with id ${id}`)
    return toAccount(row)
  }

  return {
    getAccount,

    async createAccount(input: { name: string; plan: string; perMinute?: number; perDay?: number }): Promise<Account> {
      const figures = planFigures(input.plan, input.perMinute, input.perDay)
      const row: AccountRow = { id: newId('acct'), name: input.name, plan: figures.plan, per_minute: figures.perMinute, per_day: figures.perDay, created_at: now() }
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
      const result = await db
        .updateTable('accounts')
        .set({ plan: figures.plan, per_minute: figures.perMinute, per_day: figures.perDay })
        .where('id', '=', input.id)
        .executeTakeFirst()
      if (result.numUpdatedRows === 0n) throw new NotFoundError(`no account with id ${input.id}`)
      return getAccount(input.id)
    },

    /** Creates a key and returns its secret: the only time the secret exists outside the caller. */
    async createApiKey(input: { accountId: string; environment: KeyEnvironment }): Promise<ApiKeyInfo & { key: string }> {
      await getAccount(input.accountId)
      const key = generateApiKey(input.environment)
      const row: ApiKeyRow = {
        id: newId('key'),
        account_id: input.accountId,
        key_hash: hashApiKey(key),
        key_prefix: displayPrefix(key),
        environment: input.environment,
        created_at: now(),
        revoked_at: null,
      }
      await db.insertInto('api_keys').values(row).execute()
      return { ...toKeyInfo(row), key }
    },

    async getApiKey(keyId: string): Promise<ApiKeyInfo> {
      const row = await db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst()
      if (!row) throw new NotFoundError(`no API key with id ${keyId}`)
      return toKeyInfo(row)
    },

    async listApiKeys(accountId: string): Promise<ApiKeyInfo[]> {
      await getAccount(accountId)
      const rows = await db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute()
      return rows.map(toKeyInfo)
    },

    /** Revokes a key; revoking a revoked key keeps the first revocation time. */
    async revokeApiKey(keyId: string): Promise<ApiKeyInfo> {
      const row = await db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirst()
      if (!row) throw new NotFoundError(`no API key with id ${keyId}`)
      if (row.revoked_at !== null) return toKeyInfo(row)
      const revokedAt = now()
      await db.updateTable('api_keys').set({ revoked_at: revokedAt }).where('id', '=', keyId).execute()
      return toKeyInfo({ ...row, revoked_at: revokedAt })
    },

    async findKeyOwner(secret: string): Promise<KeyOwner | undefined> {
      const row = await keyOwnerQuery.first(null, { hash: hashApiKey(secret) })
      if (!row) return undefined
      return {
        keyId: row.id,
        accountId: row.account_id,
        environment: row.environment as KeyEnvironment,
        revoked: row.revoked_at !== null,
        quota: toAccount({ id: row.account_id, name: '', plan: row.plan, per_minute: row.per_minute, per_day: row.per_day, created_at: '' }).quota,
      }
    },
  }
}

export type AccountsRepository = ReturnType<typeof createAccountsRepository>
