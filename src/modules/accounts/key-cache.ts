// Key look-ups remembered per process (PostgreSQL only: there the look-up is a network round trip per request).
// Correctness rests on three things together:
// - every change to what a look-up returns (revoke, roll, narrowed scopes, plan change) announces itself in its
//   own transaction (`NOTIFY`, see key-changes.ts); the cache is emptied when the announcement arrives, and at
//   once in the process that made the change;
// - the cache is used only while that announcement channel is known to be listening: when it drops, the cache
//   is emptied and bypassed until it listens again;
// - an entry lives at most `ttlMs` (real time), the bound that holds even if an announcement were lost.
// A look-up that started before an invalidation is not stored after it (the generation check), so a reply read
// just before a revoke cannot be kept past the revoke's announcement.
import type { KeyOwner } from './key-owner.js'

interface KeyCacheOptions {
  /** Longest life of an entry, in milliseconds. */
  ttlMs: number
  /** Entries kept at most; the oldest goes first. */
  maxEntries?: number
  /** Monotonic milliseconds (real time even under a test's business clock). */
  now?: () => number
}

interface KeyCacheEvents {
  hit?: () => void
  miss?: () => void
}

export interface KeyCache {
  get: (hash: string) => KeyOwner | undefined
  /** Taken before a look-up and given to `set`: an invalidation in between discards the result. */
  generation: () => number
  set: (hash: string, owner: KeyOwner, generation: number) => void
  /** Empties the cache (a key or an account changed). */
  invalidate: () => void
  /** The announcement channel is (or is not) listening; while it is not, nothing is cached. */
  setListening: (listening: boolean) => void
  readonly listening: boolean
}

interface Entry {
  owner: KeyOwner
  expiresAt: number
}

const DEFAULT_MAX_ENTRIES = 10_000

export function createKeyCache(
  { ttlMs, maxEntries = DEFAULT_MAX_ENTRIES, now = () => performance.now() }: KeyCacheOptions,
  events: KeyCacheEvents = {},
): KeyCache {
  const entries = new Map<string, Entry>()
  let generation = 0
  let listening = false

  function invalidate(): void {
    generation++
    entries.clear()
  }

  return {
    get(hash) {
      const entry = listening ? entries.get(hash) : undefined
      if (entry !== undefined && entry.expiresAt > now()) {
        events.hit?.()
        return entry.owner
      }
      if (entry !== undefined) entries.delete(hash)
      events.miss?.()
      return undefined
    },
    generation: () => generation,
    set(hash, owner, seen) {
      if (!listening || seen !== generation) return
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!)
      entries.set(hash, { owner, expiresAt: now() + ttlMs })
    },
    invalidate,
    setListening(on) {
      // Whatever was cached before a gap in listening may have changed during it.
      invalidate()
      listening = on
    },
    get listening() {
      return listening
    },
  }
}
