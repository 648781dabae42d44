// What every CLI command shares: validated config, an open and migrated database, one-line errors.
import { createAccountsRepository, KeyInputError, KeyStateError, NotFoundError, type AccountsRepository } from '../accounts/accounts.repository.js'
import { systemClock } from '../clock.js'
import { ConfigError, loadConfig, type Config } from '../config.js'
import { openDatabase, type DatabaseHandle } from '../db/database.js'
import { migrateToLatest } from '../db/migrate.js'
import { claimEnvironment } from '../db/settings.js'

export class UsageError extends Error {}

export interface CommandContext {
  config: Config
  handle: DatabaseHandle
  accounts: AccountsRepository
}

/** Prints `petstore: <reason>` on one line and exits non-zero; never a stack trace. */
export function fail(error: unknown): never {
  const known = [ConfigError, NotFoundError, UsageError, KeyInputError, KeyStateError].some((kind) => error instanceof kind)
  const text = error instanceof Error ? error.message : String(error)
  const message = known || error instanceof Error ? text.replace(/:\s*\n\s*-?\s*/g, ': ').replace(/\s*\n\s*-?\s*/g, '; ') : 'unexpected failure'
  process.stderr.write(`petstore: ${message}\n`)
  process.exit(known ? 2 : 1)
}

export async function withDatabase<T>(fn: (ctx: CommandContext) => Promise<T>): Promise<T> {
  const config = loadConfig()
  const handle = openDatabase(config.databaseUrl)
  try {
    await migrateToLatest(handle.db)
    await claimEnvironment(handle.db, config.environment, handle.location)
    return await fn({ config, handle, accounts: createAccountsRepository({ db: handle.db, clock: systemClock }) })
  } finally {
    await handle.close()
  }
}

/** Writes exactly one JSON object to stdout (for `--json`) or the human lines. */
export function output(json: boolean, value: object, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human()}\n`)
}

export function positiveInteger(name: string) {
  return (raw: string): number => {
    if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) throw new UsageError(`${name} must be a positive integer, got "${raw}"`)
    return Number(raw)
  }
}
