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
  /** The state of these subjects at `now` (their windows, refusal counts and ban in force), to keep elsewhere. */
  stateOf(subjects: Iterable<string>, now: number): StoreState
  /** Takes kept state back (at start: persisted.store.ts); what has ended by `now` is left out. */
  restore(state: StoreState, now: number): void
}

/** Counters and bans as they are kept outside the process (persisted.store.ts). */
export interface StoreState {
  windows: Array<{ subject: string; name: string; seconds: number; start: number; end: number; count: number }>
  refusals: Array<{ subject: string; seconds: number; start: number; end: number; count: number }>
  bans: Array<{ subject: string; until: number }>
}

/** `onChange`: called with each subject whose counts or ban a call changed (to write it behind). */
export function createMemoryStore({ onChange }: { onChange?: (subject: string) => void } = {}): MemoryStore {
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
        onChange?.(subject)
        return { admitted: true, windows: entries.map((e) => e.state) }
      }
      if (ban && windows[0]) {
        const refused = current(refusals, ban.subject, now, windows[0].seconds)
        refused.count += 1
        onChange?.(ban.subject)
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
      onChange?.(subject)
      return bans.delete(subject)
    },

    record({ subject, windows, now }) {
      sweep(now)
      for (const e of states(subject, windows, now)) e.counter.count += 1
      onChange?.(subject)
    },

    rememberBan(subject, untilMs) {
      if ((bans.get(subject) ?? 0) < untilMs) bans.set(subject, untilMs)
      onChange?.(subject)
    },

    stateOf(subjects, now) {
      const state: StoreState = { windows: [], refusals: [], bans: [] }
      for (const subject of subjects) {
        for (const c of counters.get(subject) ?? [])
          if (isCurrent(c, now) && c.count > 0)
            state.windows.push({
              subject,
              name: c.name,
              seconds: c.seconds,
              start: c.start,
              end: c.end,
              count: c.count,
            })
        const refused = refusals.get(subject)
        if (refused && isCurrent(refused, now)) {
          const seconds = (refused.end - refused.start) / 1000
          state.refusals.push({ subject, seconds, start: refused.start, end: refused.end, count: refused.count })
        }
        const until = activeBan(subject, now)
        if (until !== undefined) state.bans.push({ subject, until })
      }
      return state
    },

    restore(state, now) {
      for (const w of state.windows) {
        if (w.end <= now) continue
        let list = counters.get(w.subject)
        if (list === undefined) counters.set(w.subject, (list = []))
        list.push({ name: w.name, seconds: w.seconds, start: w.start, end: w.end, count: w.count })
      }
      for (const r of state.refusals)
        if (r.end > now) refusals.set(r.subject, { start: r.start, end: r.end, count: r.count })
      for (const b of state.bans) if (b.until > now) bans.set(b.subject, b.until)
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
