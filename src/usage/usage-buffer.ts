// Request counts kept in memory between two writes to the database: per minute, per key. Recording is a couple
// of map lookups and an increment, so it can run on every request without an await.
import { minuteOf } from '../accounts/key-state.js'

export interface MinuteCount {
  accountId: string
  keyId: string
  /** Start of the minute (ms since the epoch). */
  minute: number
  admitted: number
  refused: number
}

export interface UsageEvent {
  accountId: string
  keyId: string
  admitted: boolean
  /** When the request was decided (ms since the epoch). */
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
    }
  }

  return {
    record(e: UsageEvent): void {
      const minute = minuteOf(e.at)
      let keys = minutes.get(minute)
      if (keys === undefined) minutes.set(minute, (keys = new Map()))
      let count = keys.get(e.keyId)
      if (count === undefined) keys.set(e.keyId, (count = { accountId: e.accountId, keyId: e.keyId, minute, admitted: 0, refused: 0 }))
      if (e.admitted) count.admitted++
      else count.refused++
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

export type UsageBuffer = ReturnType<typeof createUsageBuffer>
