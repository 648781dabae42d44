// What every CLI command shares: validated config, an open and migrated database, one-line errors.
import {
  AccountInputError,
  AccountStateError,
  createAccountsRepository,
  KeyInputError,
  KeyLimitError,
  KeyStateError,
  NotFoundError,
  type AccountsRepository,
} from '../modules/accounts/accounts.repository.js'
import { InvalidArgumentError } from 'commander'
import { systemClock } from '../kernel/clock.js'
import { ConfigError, loadConfig, type Config } from '../kernel/config.js'
import { DatabaseMissing, openDatabase, type DatabaseHandle } from '../db/database.js'
import { migrateToLatest } from '../db/migrate.js'
import { claimEnvironment } from '../db/settings.js'
import { removeOwnersOf } from '../modules/integrators/account-owners.js'

/**
 * How the command was written is wrong (a bad value, a missing argument): exit 2, like Commander's own usage errors.
 */
export class UsageError extends Error {}
/**
 * The command was right but could not be done (a refused change, a service out of reach, a file in the way): exit 1.
 */
export class RunError extends Error {}

/** Exit codes: 2 for a usage error, 1 for a failure at run time. */
export const USAGE_EXIT = 2
const FAILURE_EXIT = 1

export interface CommandContext {
  config: Config
  handle: DatabaseHandle
  accounts: AccountsRepository
}

// A value the repositories refuse is a bad value on the command line; the other refusals depend on the data.
const USAGE = [UsageError, KeyInputError, AccountInputError]
// Configuration (the environment, not the command line), missing ids and refused state changes.
const FAILURE = [RunError, ConfigError, NotFoundError, KeyStateError, AccountStateError]

/** Prints `petstore: <reason>` on one line and exits 2 (usage) or 1 (anything else); never a stack trace. */
export function fail(error: unknown): never {
  const usage = USAGE.some((kind) => error instanceof kind) && !(error instanceof KeyLimitError)
  const known = usage || FAILURE.some((kind) => error instanceof kind)
  const text = error instanceof Error ? error.message : String(error)
  const message =
    known || error instanceof Error
      ? text.replace(/:\s*\n\s*-?\s*/g, ': ').replace(/\s*\n\s*-?\s*/g, '; ')
      : 'unexpected failure'
  process.stderr.write(`petstore: ${message}\n`)
  process.exit(usage ? USAGE_EXIT : FAILURE_EXIT)
}

/**
 * The database DATABASE_URL names, for a command that needs one that exists: a SQLite file that is not there is
 * refused with a line naming DATABASE_URL and the path (a typo must not become a new, empty database); a command
 * that makes something (`accounts create`, `operators create`) passes `create` and may start one.
 */
export function openExisting(config: Config, options: { create?: boolean; readOnly?: boolean } = {}): DatabaseHandle {
  try {
    return openDatabase(config.databaseUrl, { mustExist: !options.create, readOnly: options.readOnly })
  } catch (error) {
    if (!(error instanceof DatabaseMissing)) throw error
    throw new RunError(`${error.message}, or create it with \`petstore migrate\``)
  }
}

export async function withDatabase<T>(
  fn: (ctx: CommandContext) => Promise<T>,
  options: { create?: boolean } = {},
): Promise<T> {
  const config = loadConfig()
  const handle = openExisting(config, options)
  try {
    await migrateToLatest(handle.db)
    await claimEnvironment(handle.db, config.environment, handle.location)
    return await fn({
      config,
      handle,
      accounts: createAccountsRepository({ db: handle.db, clock: systemClock, removeWithAccount: removeOwnersOf }),
    })
  } finally {
    await handle.close()
  }
}

/** Writes exactly one JSON object to stdout (for `--json`) or the human lines. */
export function output(json: boolean, value: object, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human()}\n`)
}

/** Commander's parser for a whole number ≥ 1; a bad one is Commander's usage error naming the option. */
export function positiveInteger(raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw)))
    throw new InvalidArgumentError('It must be a positive integer.')
  return Number(raw)
}
