// First start on an empty database (outside production): create a local account and one key, so a
// newcomer can call the API at once. A settings row makes this happen once even with racing starts.
import type { Kysely } from 'kysely'
import type { Config } from '../../kernel/config.js'
import type { Database } from '../../db/schema.js'
import type { AccountsRepository } from './accounts.repository.js'
import { keyEnvironment } from './api-keys.js'

interface LocalAccount {
  accountId: string
  keyId: string
  key: string
}

export async function bootstrapLocalAccount(input: {
  db: Kysely<Database>
  accounts: AccountsRepository
  config: Config
}): Promise<LocalAccount | undefined> {
  const { db, accounts, config } = input
  if (config.environment === 'production') return undefined
  if ((await accounts.countAccounts()) > 0) return undefined
  const claimed = await db
    .insertInto('settings')
    .values({ name: 'local_account_bootstrapped', value: new Date().toISOString() })
    .onConflict((oc) => oc.column('name').doNothing())
    .executeTakeFirst()
  if (Number(claimed.numInsertedOrUpdatedRows ?? 0n) === 0) return undefined
  const actor = { kind: 'system' } as const
  const account = await accounts.createAccount({ name: 'local', plan: 'free', actor })
  const key = await accounts.createApiKey({
    accountId: account.id,
    environment: keyEnvironment(config.environment),
    actor,
  })
  return { accountId: account.id, keyId: key.id, key: key.key }
}
