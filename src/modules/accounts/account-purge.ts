// Removes what deleted accounts leave behind: their pets, orders, queued and delivered messages, and stored
// idempotent responses. Deleting an account (accounts.repository.ts, deleteAccount) only marks it and refuses its
// keys at once; the rows go here, in small batches (each its own statement, so no long write lock on SQLite and no
// long transaction on PostgreSQL), at server start and every hour after. Every instance runs it; the deletes
// are idempotent, so two at once only share the work.
import type { Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import { kyselyEngine, type Engine } from '../../db/engine.js'
import type { Database } from '../../db/schema.js'

const PURGE_EVERY_MS = 60 * 60 * 1000
const BATCH_ROWS = 500
// An account is looked at for a week after its deletion: far longer than the hour between runs, so a server
// stopped for days still purges it when it starts. Beyond that it is skipped, so that the tables without an
// account index (messages; cancelled orders, which the partial indexes leave out) are not scanned every hour
// for accounts that were emptied long ago.
const LOOKBACK_MS = 7 * 24 * 60 * 60 * 1000

interface Log {
  info: (obj: object, msg: string) => void
  error: (obj: object, msg: string) => void
}

interface AccountPurgeOptions {
  db: Kysely<Database>
  clock: Clock
  engine?: Engine
  log?: Log
  batchRows?: number
}

export function createAccountPurge({
  db,
  clock,
  engine = kyselyEngine(db),
  log,
  batchRows = BATCH_ROWS,
}: AccountPurgeOptions) {
  // Accounts this process found empty: not looked at again until it restarts.
  const emptied = new Set<string>()
  let timer: NodeJS.Timeout | undefined
  let running: Promise<unknown> = Promise.resolve()
  let stopping = false

  /** Deletes up to one batch of the account's rows from each table, orders before the pets they name. */
  async function batch(accountId: string): Promise<number> {
    const counts = await Promise.all([
      engine.write((x) =>
        x
          .deleteFrom('orders')
          .where('id', 'in', x.selectFrom('orders').select('id').where('account_id', '=', accountId).limit(batchRows))
          .executeTakeFirst(),
      ),
      engine.write((x) =>
        x
          .deleteFrom('messages')
          .where(
            'seq',
            'in',
            x.selectFrom('messages').select('seq').where('account_id', '=', accountId).limit(batchRows),
          )
          .executeTakeFirst(),
      ),
      engine.write((x) =>
        x
          .deleteFrom('idempotency_keys')
          .where('account_id', '=', accountId)
          .where(
            'idempotency_key',
            'in',
            x
              .selectFrom('idempotency_keys')
              .select('idempotency_key')
              .where('account_id', '=', accountId)
              .limit(batchRows),
          )
          .executeTakeFirst(),
      ),
    ])
    const pets = await engine.write((x) =>
      x
        .deleteFrom('pets')
        .where('id', 'in', x.selectFrom('pets').select('id').where('account_id', '=', accountId).limit(batchRows))
        .executeTakeFirst(),
    )
    return [...counts, pets].reduce((sum, result) => sum + Number(result.numDeletedRows), 0)
  }

  /** One pass: every recently deleted account not yet found empty, batch after batch until it is. */
  async function run(): Promise<{ accounts: number; rows: number }> {
    const since = new Date(clock.now() - LOOKBACK_MS).toISOString()
    const deleted = await db
      .selectFrom('accounts')
      .select('id')
      .where('deleted_at', 'is not', null)
      .where('deleted_at', '>=', since)
      .orderBy('deleted_at')
      .execute()
    let rows = 0
    let accounts = 0
    for (const { id } of deleted) {
      if (emptied.has(id)) continue
      let removed = 0
      for (let n = await batch(id); n > 0 && !stopping; n = await batch(id)) removed += n
      if (stopping) break
      emptied.add(id)
      accounts++
      rows += removed
      if (removed > 0) log?.info({ accountId: id, rows: removed }, 'removed the data of a deleted account')
    }
    return { accounts, rows }
  }

  function runLogged(): void {
    running = running
      .then(run)
      .catch((err: unknown) =>
        log?.error({ err }, 'removing the data of deleted accounts failed; trying again at the next run'),
      )
  }

  return {
    run,
    /** Runs now, then every `everyMs`. */
    start(everyMs = PURGE_EVERY_MS): void {
      runLogged()
      timer = setInterval(runLogged, everyMs).unref()
    },
    /** No new run; waits for the current one to finish its batch. */
    async stop(): Promise<void> {
      stopping = true
      clearInterval(timer)
      await running
    },
  }
}
