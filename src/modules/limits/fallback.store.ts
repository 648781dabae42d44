// Redis with a safety net: when Redis cannot answer (down, slow, unreachable), each process limits on its own,
// in memory, with every quota divided by `divisor` (instances × worker processes of this one: so the whole
// deployment stays within the quota). One warning per outage.
//
// A circuit breaker: after one failed call every request goes to the fallback at once, and Redis is probed in
// the background; the first answer switches back, without a restart. A Redis that stops answering (paused, not
// closed) so costs one request one command timeout, not every request.
//
// What the fallback needs to take over mid-window is kept while Redis serves: every request Redis admits is
// counted here too (so a process goes on from what it admitted in the window, not from zero), and every ban Redis
// reports is remembered (so a ban holds through the outage). Bans decided or seen here are written back to Redis,
// with their remaining time, when it answers again (so they survive a Redis that restarted empty).
import type { Logger } from '../../kernel/logger.js'
import { createOutageLog } from '../../ops/outage-log.js'
import type { MemoryStore } from './memory.store.js'
import type { ConsumeResult, RateLimitStore, WindowSpec } from './rate-limit.store.js'
import type { RedisStore } from './redis.store.js'

/** How often a down Redis is probed: the first probe soon (a blip), then at most once a second. */
const FIRST_PROBE_MS = 100
const PROBE_EVERY_MS = 1_000

export function createFallbackStore({
  primary,
  fallback,
  divisor,
  log,
  down: startsDown = false,
}: {
  primary: Pick<RedisStore, keyof RateLimitStore | 'restoreBans'>
  fallback: MemoryStore
  divisor: number
  log: Logger
  /** The primary is known to be down already (and that was logged): the outage is not reported again. */
  down?: boolean
}): RateLimitStore & { degraded: () => boolean } {
  let down = false
  let probe: NodeJS.Timeout | undefined
  let closed = false
  // The latest `now` of a request: the clock bans are restored against (a test's manual clock included).
  let lastNow = 0
  // One warning when Redis stops answering, a count of failed probes every 30 s, one line when it answers again.
  const outage = createOutageLog({
    dependency: 'rate-limit store',
    log,
    startMessage: (reason) =>
      `rate-limit store unreachable (${reason}): limiting per process at 1/${divisor} of each quota until it is back`,
    endMessage: 'rate-limit store reachable again: limits are shared across instances again',
  })
  const scaled = (windows: WindowSpec[]) =>
    windows.map((w) => ({ ...w, limit: Math.max(1, Math.floor(w.limit / divisor)) }))

  function open(err: unknown, quiet = false): void {
    if (down) return
    down = true
    // Quiet: already reported (Redis missing at start): counted from here, without a second warning.
    outage.failed(err, { quiet })
    schedule(FIRST_PROBE_MS)
  }

  function schedule(ms: number): void {
    if (closed) return
    probe = setTimeout(async () => {
      try {
        await primary.ping()
        await primary.restoreBans(fallback.bansInForce(lastNow), lastNow)
      } catch (err) {
        outage.failed(err)
        schedule(PROBE_EVERY_MS)
        return
      }
      down = false
      outage.ok()
    }, ms)
    probe.unref()
  }

  async function attempt<T>(viaPrimary: () => Promise<T>, viaFallback: () => Promise<T>): Promise<T> {
    if (down) return viaFallback()
    try {
      return await viaPrimary()
    } catch (err) {
      open(err)
      return viaFallback()
    }
  }

  if (startsDown) open(undefined, true)

  return {
    degraded: () => down,
    consume: (input) => {
      lastNow = Math.max(lastNow, input.now)
      return attempt(
        async () => {
          const result: ConsumeResult = await primary.consume(input)
          if (result.admitted) fallback.record(input)
          if (input.ban) {
            // Redis is the authority while it answers: a ban lifted there (`keys unban` through another instance)
            // is forgotten here too, so it is not restored after the next outage.
            if (result.bannedUntil !== undefined) fallback.rememberBan(input.ban.subject, result.bannedUntil)
            else void fallback.unban(input.ban.subject)
          }
          return result
        },
        () => fallback.consume({ ...input, windows: scaled(input.windows) }),
      )
    },
    usage: (input) =>
      attempt(
        () => primary.usage(input),
        () => fallback.usage({ ...input, windows: scaled(input.windows) }),
      ),
    bannedUntil: (input) =>
      attempt(
        () => primary.bannedUntil(input),
        () => fallback.bannedUntil(input),
      ),
    unban: async (subject) => {
      const [a, b] = await Promise.all([
        attempt(
          () => primary.unban(subject),
          async () => false,
        ),
        fallback.unban(subject),
      ])
      return a || b
    },
    // Readiness: while the breaker is open the fallback serves (degraded, not down).
    ping: () => (down ? Promise.reject(new Error('unreachable; limiting per process')) : primary.ping()),
    close: async () => {
      closed = true
      clearTimeout(probe)
      await Promise.all([primary.close(), fallback.close()])
    },
  }
}
