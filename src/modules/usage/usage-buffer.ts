// Request counts kept in memory between two writes to the database: per minute, per key, by outcome. Recording is
// a couple of map lookups and two increments, so it can run on every response without an await.
import { minuteOf } from '../accounts/key-state.js'

export interface MinuteCount {
  accountId: string
  keyId: string
  /** Start of the minute (ms since the epoch). */
  minute: number
  /** Requests the rate limiter let through, whatever their answer (so rows written before outcomes stay right). */
  admitted: number
  /** Requests the rate limiter refused (429). */
  refused: number
  /** Admitted requests answered 4xx (the client's mistake: a bad body, an unknown pet). */
  clientErrors: number
  /** Admitted requests answered 5xx (ours: a failure, the database unavailable). */
  serverErrors: number
}

export interface UsageEvent {
  accountId: string
  keyId: string
  /** The response's status. A 429 of a request with a valid key can only be the rate limiter's. */
  status: number
  /** When the response was sent (ms since the epoch). */
  at: number
}

export function createUsageBuffer() {
  // minute -> key id -> count
  let minutes = new Map<number, Map<string, MinuteCount>>()

  function add(count: MinuteCount): void {
    let keys = minutes.get(count.minute)
    if (keys === undefined) minutes.set(count.minute, (keys = new Map()))
    const held = keys.get(count.keyId)
    if (held === undefined) keys.set(count.keyId, { ...count })
    else {
      held.admitted += count.admitted
      held.refused += count.refused
      held.clientErrors += count.clientErrors
      held.serverErrors += count.serverErrors
    }
  }

  return {
    record(e: UsageEvent): void {
      const minute = minuteOf(e.at)
      let keys = minutes.get(minute)
      if (keys === undefined) minutes.set(minute, (keys = new Map()))
      let count = keys.get(e.keyId)
      if (count === undefined)
        keys.set(
          e.keyId,
          (count = {
            accountId: e.accountId,
            keyId: e.keyId,
            minute,
            admitted: 0,
            refused: 0,
            clientErrors: 0,
            serverErrors: 0,
          }),
        )
      const status = e.status
      if (status === 429) count.refused++
      else {
        count.admitted++
        if (status >= 500) count.serverErrors++
        else if (status >= 400) count.clientErrors++
      }
    },

    /** Everything recorded so far; the buffer starts empty again. */
    take(): MinuteCount[] {
      const taken = [...minutes.values()].flatMap((keys) => [...keys.values()])
      minutes = new Map()
      return taken
    },

    /** Puts counts back (a write that failed), added to whatever was recorded since. */
    restore(counts: MinuteCount[]): void {
      for (const count of counts) add(count)
    },
  }
}
