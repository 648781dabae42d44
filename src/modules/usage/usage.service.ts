// Usage of the API per account and key: every request with a valid key is recorded in memory by outcome when its
// response is sent (success, client error, refused 429, server error) and the counts are added to the database
// every few seconds and on shutdown, so they survive a restart and add up over instances. Beside them, the live
// counts of the rate limiter against the plan's limits.
import type { Kysely } from 'kysely'
import type { AccountsRepository } from '../accounts/accounts.repository.js'
import type { Engine } from '../../db/engine.js'
import type { Database } from '../../db/schema.js'
import { accountSubject, accountWindows } from '../limits/rate-limiter.js'
import type { RateLimitStore } from '../limits/rate-limit.store.js'
import { createUsageBuffer, type UsageEvent } from './usage-buffer.js'
import { createUsageRepository, DAYS, MINUTES, type Counts, type Period } from './usage.repository.js'

const MINUTE_MS = 60_000
const DAY_MS = 86_400_000
/** What the series show: the last hour by minute, the last 30 days by UTC day. */
const MINUTES_SHOWN = 60
const DAYS_SHOWN = 30
/** How long rows are kept: minute rows two days (the hour chart needs one), day rows 90 days (the chart needs 30). */
const MINUTE_ROWS_KEPT_MS = 2 * DAY_MS
const DAY_ROWS_KEPT_MS = 90 * DAY_MS

/** One minute or day of requests by outcome; the four add up to every request with a valid key. */
export interface UsagePoint {
  /** Start of the minute or UTC day (ISO instant). */
  at: string
  /** Answered 2xx or 3xx. */
  success: number
  /** Answered 4xx other than 429 (a bad body, an unknown pet …). */
  clientErrors: number
  /** Refused by the rate limiter (429). */
  refused: number
  /** Answered 5xx (a failure on our side, the database unavailable). */
  serverErrors: number
}

function pointOf(at: string, c: Counts | undefined): UsagePoint {
  if (c === undefined) return { at, success: 0, clientErrors: 0, refused: 0, serverErrors: 0 }
  return {
    at,
    success: c.admitted - c.client_errors - c.server_errors,
    clientErrors: c.client_errors,
    refused: c.refused,
    serverErrors: c.server_errors,
  }
}

interface UsageWindow {
  name: 'minute' | 'day'
  limit: number
  used: number
  remaining: number
  resetsAt: string
}

export function createUsage({
  db,
  engine,
  accounts,
  store,
}: {
  db: Kysely<Database>
  engine: Engine
  accounts: AccountsRepository
  store: RateLimitStore
}) {
  const buffer = createUsageBuffer()
  const repository = createUsageRepository({ db, engine })
  // Writes run one after another: a flush asked for during another waits for it, then writes what came since.
  let writing: Promise<void> = Promise.resolve()

  function flush(): Promise<void> {
    const run = writing.then(async () => {
      const counts = buffer.take()
      try {
        await repository.add(counts)
      } catch (error) {
        buffer.restore(counts) // kept for the next flush, not lost
        throw error
      }
    })
    writing = run.catch(() => undefined)
    return run
  }

  /** Zero-filled points for the `count` periods of `size` ms ending with the one containing `now`. */
  async function series(
    period: Period,
    size: number,
    count: number,
    q: { accountId: string; keyId?: string; now: number },
  ): Promise<UsagePoint[]> {
    await flush() // this instance's latest requests count at once; other instances' within one flush interval
    const last = q.now - (q.now % size)
    const starts = Array.from({ length: count }, (_, i) => new Date(last - (count - 1 - i) * size).toISOString())
    const found = await repository.series(period, {
      accountId: q.accountId,
      keyId: q.keyId,
      from: starts[0]!,
      to: starts[count - 1]!,
    })
    return starts.map((at) => pointOf(at, found.get(at)))
  }

  return {
    /** Counts one answered request that had a valid key, by its status. Synchronous: it only touches memory. */
    record(e: UsageEvent): void {
      buffer.record(e)
    },

    /** Adds what is buffered to the database now (periodically, on shutdown, and before every read). */
    flush,

    /** The last 60 minutes, oldest first, zero-filled. */
    perMinute: (q: { accountId: string; keyId?: string; now: number }) => series(MINUTES, MINUTE_MS, MINUTES_SHOWN, q),

    /** The last 30 UTC days, oldest first, zero-filled. */
    perDay: (q: { accountId: string; keyId?: string; now: number }) => series(DAYS, DAY_MS, DAYS_SHOWN, q),

    /** The plan's limits beside the rate limiter's live counts of the current minute and day. */
    async current(accountId: string, now: number): Promise<{ plan: string; windows: UsageWindow[] }> {
      const account = await accounts.getAccount(accountId)
      const { windows } = await store.usage({
        subject: accountSubject(account.id),
        windows: accountWindows(account.quota),
        now,
      })
      return {
        plan: account.plan,
        windows: windows.map((w) => ({
          name: w.name as UsageWindow['name'],
          limit: w.limit,
          used: w.used,
          remaining: Math.max(0, w.limit - w.used),
          resetsAt: new Date(w.resetAt).toISOString(),
        })),
      }
    },

    /** Deletes rows past their keeping time; returns how many. */
    async purge(now: number): Promise<number> {
      const minutes = await repository.purge(MINUTES, new Date(now - MINUTE_ROWS_KEPT_MS).toISOString())
      return minutes + (await repository.purge(DAYS, new Date(now - DAY_ROWS_KEPT_MS).toISOString()))
    },
  }
}

export type Usage = ReturnType<typeof createUsage>
