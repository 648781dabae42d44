// The default store: counters in this process's memory. Every method's critical section is synchronous,
// so concurrent requests cannot interleave inside a decision: admitted counts are exact.
import {
  windowBounds,
  type ConsumeInput,
  type ConsumeResult,
  type RateLimitStore,
  type WindowSpec,
  type WindowState,
} from './rate-limit.store.js'

interface Counter {
  start: number
  end: number
  count: number
}

interface NamedCounter extends Counter {
  name: string
  seconds: number
}

/** Entries of windows that have ended are dropped at most this often, so memory follows live subjects. */
const SWEEP_EVERY_MS = 60_000

/** The in-memory store, plus what the Redis fallback needs of it to take over mid-window (fallback.store.ts). */
export interface MemoryStore extends RateLimitStore {
  /** Counts a request admitted elsewhere (by Redis) in every window, whatever the limits. */
  record(input: { subject: string; windows: WindowSpec[]; now: number }): void
  /** Notes a ban decided elsewhere (by Redis), so it holds here too. */
  rememberBan(subject: string, untilMs: number): void
  /** Every ban in force at `now`: [subject, until]. */
  bansInForce(now: number): [string, number][]
}

export function createMemoryStore(): MemoryStore {
  // Per subject, one counter per window (matched by name and length), so a request looks its subject up once.
  const counters = new Map<string, NamedCounter[]>()
  const refusals = new Map<string, Counter>()
  const bans = new Map<string, number>()
  let lastSweep = 0

  function sweep(now: number): void {
    if (now - lastSweep < SWEEP_EVERY_MS) return
    lastSweep = now
    for (const [key, list] of counters) if (list.every((c) => c.end <= now)) counters.delete(key)
    for (const [key, c] of refusals) if (c.end <= now) refusals.delete(key)
    for (const [key, until] of bans) if (until <= now) bans.delete(key)
  }

  const isCurrent = (c: Counter, now: number) => c.end > now && c.start <= now

  function current(map: Map<string, Counter>, key: string, now: number, seconds: number): Counter {
    const existing = map.get(key)
    if (existing && isCurrent(existing, now)) return existing
    const fresh = { ...windowBounds(now, seconds), count: 0 }
    map.set(key, fresh)
    return fresh
  }

  function counterFor(list: NamedCounter[], w: WindowSpec, now: number): NamedCounter {
    const existing = list.find((c) => c.name === w.name && c.seconds === w.seconds)
    if (existing && isCurrent(existing, now)) return existing
    const fresh = { name: w.name, seconds: w.seconds, ...windowBounds(now, w.seconds), count: 0 }
    if (existing) list[list.indexOf(existing)] = fresh
    else list.push(fresh)
    return fresh
  }

  function states(subject: string, windows: WindowSpec[], now: number): { counter: Counter; state: WindowState }[] {
    let list = counters.get(subject)
    if (list === undefined) counters.set(subject, (list = []))
    const result: { counter: Counter; state: WindowState }[] = []
    for (const w of windows) {
      const counter = counterFor(list, w, now)
      result.push({
        counter,
        state: { name: w.name, limit: w.limit, seconds: w.seconds, used: counter.count, resetAt: counter.end },
      })
    }
    return result
  }

  function activeBan(subject: string, now: number): number | undefined {
    const until = bans.get(subject)
    return until !== undefined && until > now ? until : undefined
  }

  return {
    async consume({ subject, windows, now, ban }: ConsumeInput): Promise<ConsumeResult> {
      sweep(now)
      const bannedUntil = ban && activeBan(ban.subject, now)
      const entries = states(subject, windows, now)
      if (bannedUntil !== undefined) return { admitted: false, windows: entries.map((e) => e.state), bannedUntil }
      if (entries.every((e) => e.counter.count < e.state.limit)) {
        for (const e of entries) e.state.used = ++e.counter.count
        return { admitted: true, windows: entries.map((e) => e.state) }
      }
      if (ban && windows[0]) {
        const refused = current(refusals, ban.subject, now, windows[0].seconds)
        refused.count += 1
        if (refused.count > ban.threshold) {
          bans.set(ban.subject, now + ban.durationMs)
          return {
            admitted: false,
            windows: entries.map((e) => e.state),
            bannedUntil: now + ban.durationMs,
            banStarted: true,
          }
        }
      }
      return { admitted: false, windows: entries.map((e) => e.state) }
    },

    async usage({ subject, windows, now }) {
      return { windows: states(subject, windows, now).map((e) => e.state) }
    },

    async bannedUntil({ subject, now }) {
      return activeBan(subject, now)
    },

    async unban(subject) {
      refusals.delete(subject)
      return bans.delete(subject)
    },

    record({ subject, windows, now }) {
      sweep(now)
      for (const e of states(subject, windows, now)) e.counter.count += 1
    },

    rememberBan(subject, untilMs) {
      if ((bans.get(subject) ?? 0) < untilMs) bans.set(subject, untilMs)
    },

    bansInForce: (now) => [...bans].filter(([, until]) => until > now),

    async ping() {},

    async close() {
      counters.clear()
      refusals.clear()
      bans.clear()
    },
  }
}
