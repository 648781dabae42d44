// Safe retries: the first request with a key runs and its response is stored in the same transaction as
// its effect; later requests with the same key and body get that response again, a different body gets
// 422, and a request arriving while the first is still running gets 409. Records expire after 24 hours.
// A claim left in progress by a process that died mid-request is taken over by a retry once no request could
// still be running under it (REQUEST_TIMEOUT_MS + 5 s); each claim is its own token (its created_at), so a
// request that was slower than that and finishes after the takeover rolls back instead of creating twice.
import type { Kysely, WhereInterface } from 'kysely'
import { isSafeNumber, parse, stringify } from 'lossless-json'
import type { Clock } from '../../kernel/clock.js'
import { kyselyEngine, type Engine } from '../../db/engine.js'
import type { Database } from '../../db/schema.js'
import { IdempotencyConflict } from './idempotency.errors.js'

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000
/** Beyond the request timeout, how long an in-progress record is left to its request before a retry may take it. */
export const ABANDON_GRACE_MS = 5_000

interface StoredResponse {
  status: number
  body: unknown
  location: string | null
}

const iso = (ms: number) => new Date(ms).toISOString()
const parseNumber = (text: string) => (/^-?\d+$/.test(text) && !isSafeNumber(text) ? BigInt(text) : Number(text))

const inProgress = () => new IdempotencyConflict('in_progress')

/** `requestTimeoutMs`: REQUEST_TIMEOUT_MS; a claim older than it plus ABANDON_GRACE_MS is from a crashed request. */
export function createIdempotencyRepository({
  db,
  clock,
  engine = kyselyEngine(db),
  requestTimeoutMs,
}: {
  db: Kysely<Database>
  clock: Clock
  engine?: Engine
  requestTimeoutMs: number
}) {
  const abandonedAfterMs = requestTimeoutMs + ABANDON_GRACE_MS
  const where =
    (accountId: string, key: string) =>
    <QB extends WhereInterface<Database, 'idempotency_keys'>>(qb: QB): QB =>
      qb.where('account_id', '=', accountId).where('idempotency_key', '=', key) as QB

  /**
   * Claims the key for this request (`claimedAt`: the claim's created_at, its token), or returns the stored
   * response to replay; throws 409/422.
   */
  async function claim(
    accountId: string,
    key: string,
    fingerprint: string,
  ): Promise<{ claimedAt: string } | { stored: StoredResponse }> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = clock.now()
      // The claim is committed on its own, before the operation runs: a concurrent request with the same key sees it.
      const inserted = await engine.write((executor) =>
        executor
          .insertInto('idempotency_keys')
          .values({
            account_id: accountId,
            idempotency_key: key,
            fingerprint,
            state: 'in_progress',
            created_at: iso(now),
            expires_at: iso(now + IDEMPOTENCY_TTL_MS),
            response_status: null,
            response_body: null,
            response_location: null,
          })
          .onConflict((oc) => oc.columns(['account_id', 'idempotency_key']).doNothing())
          .executeTakeFirst(),
      )
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return { claimedAt: iso(now) }
      const row = await db.selectFrom('idempotency_keys').selectAll().$call(where(accountId, key)).executeTakeFirst()
      if (!row) continue
      if (row.expires_at <= iso(now)) {
        await db
          .deleteFrom('idempotency_keys')
          .$call(where(accountId, key))
          .where('expires_at', '=', row.expires_at)
          .execute()
        continue
      }
      if (row.fingerprint !== fingerprint) {
        throw new IdempotencyConflict('reused')
      }
      if (row.state === 'done')
        return {
          stored: {
            status: Number(row.response_status),
            body: parse(row.response_body ?? 'null', null, parseNumber),
            location: row.response_location,
          },
        }
      if (Date.parse(row.created_at) + abandonedAfterMs <= now) {
        const taken = await db
          .updateTable('idempotency_keys')
          .set({ created_at: iso(now) })
          .$call(where(accountId, key))
          .where('state', '=', 'in_progress')
          .where('created_at', '=', row.created_at)
          .executeTakeFirst()
        if (taken.numUpdatedRows === 1n) return { claimedAt: iso(now) }
      }
      throw inProgress()
    }
    throw inProgress()
  }

  return {
    /**
     * Runs `operation` once per (account, key): its effect and the stored response commit together.
     * Returns the response to send and whether it is a replay. Without a key it just runs `operation`, which
     * must then be a single write statement (it is committed as one).
     */
    async execute(
      input: { accountId: string; key: string; fingerprint: string } | undefined,
      operation: (trx: Kysely<Database>) => Promise<StoredResponse>,
    ): Promise<StoredResponse & { replayed: boolean }> {
      // Without a key nothing is stored beside the effect, a single INSERT: it is committed as one write (no
      // BEGIN/COMMIT round trips on PostgreSQL; grouped with the other writes of its turn on SQLite).
      if (input === undefined) return { ...(await engine.write(operation)), replayed: false }
      const claimed = await claim(input.accountId, input.key, input.fingerprint)
      if ('stored' in claimed) return { ...claimed.stored, replayed: true }
      const mine = <QB extends WhereInterface<Database, 'idempotency_keys'>>(qb: QB): QB =>
        where(
          input.accountId,
          input.key,
        )(qb)
          .where('state', '=', 'in_progress')
          .where('created_at', '=', claimed.claimedAt) as QB
      try {
        // The creation (one INSERT) and this key's own row: safe to share a transaction with the turn's other writes.
        const response = await engine.writeTogether(async (trx) => {
          const result = await operation(trx)
          const stored = await trx
            .updateTable('idempotency_keys')
            .set({
              state: 'done',
              response_status: result.status,
              response_body: stringify(result.body) ?? 'null',
              response_location: result.location,
            })
            .$call(mine)
            .executeTakeFirst()
          // A retry took the key over (this request outlived the takeover time): its run is the one that counts.
          if (stored.numUpdatedRows !== 1n) throw inProgress()
          return result
        })
        return { ...response, replayed: false }
      } catch (error) {
        // Nothing was committed: free the key (if it is still this request's) so that a retry can run.
        await db.deleteFrom('idempotency_keys').$call(mine).execute()
        throw error
      }
    },

    /** Deletes expired records; returns how many. */
    async purgeExpired(): Promise<number> {
      const result = await db
        .deleteFrom('idempotency_keys')
        .where('expires_at', '<=', iso(clock.now()))
        .executeTakeFirst()
      return Number(result.numDeletedRows)
    },
  }
}

export type IdempotencyRepository = ReturnType<typeof createIdempotencyRepository>
