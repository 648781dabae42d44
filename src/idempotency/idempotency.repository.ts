// Safe retries: the first request with a key runs and its response is stored in the same transaction as
// its effect; later requests with the same key and body get that response again, a different body gets
// 422, and a request arriving while the first is still running gets 409. Records expire after 24 hours.
import type { Kysely, WhereInterface } from 'kysely'
import { isSafeNumber, parse, stringify } from 'lossless-json'
import type { Clock } from '../clock.js'
import { kyselyEngine, type Engine } from '../db/engine.js'
import type { Database } from '../db/schema.js'
import { ApiError } from '../http/errors.js'

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000
/** An in-progress record older than this is from a crashed request; a retry may take it over. */
const ABANDONED_AFTER_MS = 60_000

export interface StoredResponse {
  status: number
  body: unknown
  location: string | null
}

const iso = (ms: number) => new Date(ms).toISOString()
const parseNumber = (text: string) => (/^-?\d+$/.test(text) && !isSafeNumber(text) ? BigInt(text) : Number(text))

export function createIdempotencyRepository({ db, clock, engine = kyselyEngine(db) }: { db: Kysely<Database>; clock: Clock; engine?: Engine }) {
  const where =
    (accountId: string, key: string) =>
    <QB extends WhereInterface<Database, 'idempotency_keys'>>(qb: QB): QB =>
      qb.where('account_id', '=', accountId).where('idempotency_key', '=', key) as QB

  /** Claims the key for this request, or returns the stored response to replay; throws 409/422. */
  async function claim(accountId: string, key: string, fingerprint: string): Promise<StoredResponse | undefined> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = clock.now()
      // The claim is committed on its own, before the operation runs: a concurrent request with the same key sees it.
      const inserted = await engine.write((executor) =>
        executor
          .insertInto('idempotency_keys')
          .values({ account_id: accountId, idempotency_key: key, fingerprint, state: 'in_progress', created_at: iso(now), expires_at: iso(now + IDEMPOTENCY_TTL_MS), response_status: null, response_body: null, response_location: null })
          .onConflict((oc) => oc.columns(['account_id', 'idempotency_key']).doNothing())
          .executeTakeFirst(),
      )
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return undefined
      const row = await db.selectFrom('idempotency_keys').selectAll().$call(where(accountId, key)).executeTakeFirst()
      if (!row) continue
      if (row.expires_at <= iso(now)) {
        await db.deleteFrom('idempotency_keys').$call(where(accountId, key)).where('expires_at', '=', row.expires_at).execute()
        continue
      }
      if (row.fingerprint !== fingerprint) {
        throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request body; use a new key for a new request.')
      }
      if (row.state === 'done') return { status: Number(row.response_status), body: parse(row.response_body ?? 'null', null, parseNumber), location: row.response_location }
      if (Date.parse(row.created_at) + ABANDONED_AFTER_MS <= now) {
        const taken = await db
          .updateTable('idempotency_keys')
          .set({ created_at: iso(now) })
          .$call(where(accountId, key))
          .where('state', '=', 'in_progress')
          .where('created_at', '=', row.created_at)
          .executeTakeFirst()
        if (taken.numUpdatedRows === 1n) return undefined
      }
      throw new ApiError('idempotency_key_in_progress', 'A request with this Idempotency-Key is still in progress; retry after it has finished.')
    }
    throw new ApiError('idempotency_key_in_progress', 'A request with this Idempotency-Key is still in progress; retry after it has finished.')
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
      const stored = await claim(input.accountId, input.key, input.fingerprint)
      if (stored) return { ...stored, replayed: true }
      try {
        const response = await engine.transaction(async (trx) => {
          const result = await operation(trx)
          await trx
            .updateTable('idempotency_keys')
            .set({ state: 'done', response_status: result.status, response_body: stringify(result.body) ?? 'null', response_location: result.location })
            .$call(where(input.accountId, input.key))
            .execute()
          return result
        })
        return { ...response, replayed: false }
      } catch (error) {
        // Nothing was committed: free the key so that a retry can run.
        await db.deleteFrom('idempotency_keys').$call(where(input.accountId, input.key)).where('state', '=', 'in_progress').execute()
        throw error
      }
    },

    /** Deletes expired records; returns how many. */
    async purgeExpired(): Promise<number> {
      const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', iso(clock.now())).executeTakeFirst()
      return Number(result.numDeletedRows)
    },
  }
}

export type IdempotencyRepository = ReturnType<typeof createIdempotencyRepository>
