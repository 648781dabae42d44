// Rate-limit counters and bans in Redis, shared by every instance. The whole decision for one request
// (ban check, every window checked, all consumed or none, refusals counted, ban started) is made in a Lua
// script, which Redis runs atomically: the quota holds exactly across instances (the requests of one turn share
// one call: redis-consume.ts). Keys expire relative to the
// `now` of the request that made them (PEXPIRE, not PEXPIREAT), so they live as long as their window on any
// clock, plus a grace minute: a key's name carries its window's start, so keeping it longer changes no count,
// while expiring it at the very end would let a request stamped a moment earlier (an instance whose clock is a
// little behind, or a test clock that stands still while real time passes) find its window's count gone and
// start again from 0.
import { performance } from 'node:perf_hooks'
import { createRequire } from 'node:module'
import type { Redis } from 'ioredis'
import { createBatchedConsume } from './redis-consume.js'
import { createDeadline } from './redis-deadline.js'
import {
  windowBounds,
  type ConsumeInput,
  type ConsumeResult,
  type RateLimitStore,
  type WindowSpec,
  type WindowState,
} from './rate-limit.store.js'

/**
 * What a Redis that stops answering costs the requests that find out (one turn's; then the fallback's breaker opens).
 */
const REDIS_COMMAND_TIMEOUT_MS = 50

interface RedisStoreOptions {
  url: string
  /** Prefix of every key, so several deployments (or test runs) can share one Redis. */
  prefix: string
  /**
   * Milliseconds Redis may stay silent before a command fails (the caller then falls back). The store counts them
   * only while this process is free to hear the answer (redis-deadline.ts); a bare client, on the event loop.
   */
  commandTimeoutMs?: number
}

/**
 * A Redis client that never queues or waits: a command fails at once while Redis is unreachable, and after
 * `commandTimeoutMs` of event-loop time when it does not answer (`timer: false`: no such timer; the caller
 * bounds the wait itself).
 */
export function createRedisClient(options: RedisStoreOptions, { timer = true }: { timer?: boolean } = {}): Redis {
  // ioredis is loaded only where Redis is configured (~0.1 s of a start without it).
  const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis')
  const client = new RedisClient(options.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    ...(timer ? { commandTimeout: options.commandTimeoutMs ?? REDIS_COMMAND_TIMEOUT_MS } : {}),
    connectTimeout: 1_000,
    // Keep trying in the background, once a second; requests meanwhile use the fallback.
    retryStrategy: () => 1_000,
    lazyConnect: true,
    // The commands of one turn of the event loop go out in one write, and their answers come back in one: one
    // wake-up of Redis and of this process for many requests, where the wake-ups cost more than the commands
    // (BENCHMARKS.md, entry 17). The limiter's decisions are one command per turn already (redis-consume.ts);
    // the usage and ban reads of the portal and the admin routes ride along.
    enableAutoPipelining: true,
  })
  // Without a listener ioredis prints every failed (re)connection attempt to stderr, once a second for the
  // whole outage. The failures reach the caller through the commands that fail; the fallback store logs them
  // once per outage.
  client.on('error', () => {})
  return client
}

export type RedisStore = RateLimitStore & {
  client: Redis
  ready: () => Promise<void>
  /** Writes bans known elsewhere (the fallback's, after an outage) with their remaining time; a longer one stays. */
  restoreBans: (bans: [string, number][], now: number) => Promise<void>
}

/** When anything last arrived from Redis on the client's connection (performance.now() ms), for the deadline. */
function lastHeard(client: Redis): () => number {
  let at = 0
  const heard = () => void (at = performance.now())
  const listen = () => client.stream?.on('data', heard)
  // A new connection (the first, or after a reconnection) gets its own stream.
  client.on('connect', listen)
  if (client.status === 'connect' || client.status === 'ready') listen()
  return () => at
}

export function createRedisStore(options: RedisStoreOptions & { client?: Redis }): RedisStore {
  const client = options.client ?? createRedisClient(options, { timer: false })
  // Every command of the store is bounded by this deadline instead of an event-loop timer: a busy process is not
  // a silent Redis (redis-deadline.ts).
  const within = createDeadline({
    timeoutMs: options.commandTimeoutMs ?? REDIS_COMMAND_TIMEOUT_MS,
    lastHeardAt: lastHeard(client),
  })
  const consume = createBatchedConsume(client, within)
  const p = options.prefix
  const counterKey = (subject: string, w: WindowSpec, start: number) =>
    `${p}rl:${subject}:${w.name}:${w.seconds}:${start}`
  const banKey = (subject: string) => `${p}ban:${subject}`
  // Refusals, one hash field per first-window start; the hash expires when the current window ends.
  const refusalKey = (subject: string) => `${p}rf:${subject}`

  function states(windows: WindowSpec[], now: number, counts: number[]): WindowState[] {
    return windows.map((w, i) => ({ ...w, used: Number(counts[i] ?? 0), resetAt: windowBounds(now, w.seconds).end }))
  }

  return {
    client,
    async ready() {
      if (client.status === 'wait') await client.connect()
    },

    async consume({ subject, windows, now, ban }: ConsumeInput): Promise<ConsumeResult> {
      const bounds = windows.map((w) => windowBounds(now, w.seconds))
      const first = bounds[0] ?? { start: now, end: now + 60_000 }
      const keys = windows.map((w, i) => counterKey(subject, w, bounds[i]!.start))
      keys.push(ban ? refusalKey(ban.subject) : `${p}rf:none`, ban ? banKey(ban.subject) : `${p}ban:none`)
      const args = [
        now,
        windows.length,
        ban ? '1' : '0',
        ban?.threshold ?? 0,
        ban?.durationMs ?? 0,
        first.end,
        first.start,
      ]
      windows.forEach((w, i) => args.push(w.limit, bounds[i]!.end))
      const [admitted, bannedUntil, banStarted, ...counts] = await consume(keys, args)
      return {
        admitted: admitted === 1,
        windows: states(windows, now, counts),
        ...(bannedUntil ? { bannedUntil, banStarted: banStarted === 1 } : {}),
      }
    },

    async usage({ subject, windows, now }) {
      const keys = windows.map((w) => counterKey(subject, w, windowBounds(now, w.seconds).start))
      const counts = keys.length === 0 ? [] : await within(client.mget(...keys))
      return {
        windows: states(
          windows,
          now,
          counts.map((c) => Number(c ?? 0)),
        ),
      }
    },

    async bannedUntil({ subject, now }) {
      const until = Number((await within(client.get(banKey(subject)))) ?? 0)
      return until > now ? until : undefined
    },

    async restoreBans(bans, now) {
      const live = bans.filter(([, until]) => until > now)
      if (live.length === 0) return
      const multi = client.multi()
      // GT would keep a longer ban, but needs Redis 7; NX keeps any ban Redis has (it knew it first).
      for (const [subject, until] of live) multi.set(banKey(subject), until, 'PX', until - now, 'NX')
      await within(multi.exec())
    },

    async unban(subject) {
      const [deleted] = await within(Promise.all([client.del(banKey(subject)), client.del(refusalKey(subject))]))
      return deleted > 0
    },

    async ping() {
      await within(client.ping())
    },

    async close() {
      client.disconnect()
    },
  }
}
