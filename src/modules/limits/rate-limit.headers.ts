// Response headers describing the limits: the spec's X-RateLimit-* (Reset as Unix epoch seconds) and the
// IETF draft's RateLimit-Policy / RateLimit (draft-ietf-httpapi-ratelimit-headers).
import type { WindowSpec, WindowState } from './rate-limit.store.js'

const remainingOf = (w: WindowState) => Math.max(0, w.limit - w.used)
const secondsUntil = (at: number, now: number) => Math.max(0, Math.ceil((at - now) / 1000))

/** The window with the fewest requests left; on a tie, the shorter one. */
function bindingWindow(windows: WindowState[]): WindowState {
  const [first, ...rest] = windows
  if (!first) throw new Error('no rate-limit windows')
  return rest.reduce((best, w) => {
    const diff = remainingOf(w) - remainingOf(best)
    return diff < 0 || (diff === 0 && w.seconds < best.seconds) ? w : best
  }, first)
}

/** The `RateLimit-Policy` value of a set of windows. */
export function policyHeader(windows: WindowSpec[]): string {
  return windows.map((w) => `"${w.name}";q=${w.limit};w=${w.seconds}`).join(', ')
}

/** `policy`: the policy of these windows, when the caller has it already (it only changes with the quota). */
export function rateLimitHeaders(
  windows: WindowState[],
  now: number,
  policy = policyHeader(windows),
): Record<string, string> {
  const binding = bindingWindow(windows)
  const remaining = String(remainingOf(binding))
  return {
    'x-ratelimit-limit': String(binding.limit),
    'x-ratelimit-remaining': remaining,
    'x-ratelimit-reset': String(Math.ceil(binding.resetAt / 1000)),
    'ratelimit-policy': policy,
    ratelimit: `"${binding.name}";r=${remaining};t=${secondsUntil(binding.resetAt, now)}`,
  }
}

/** Whole seconds (≥ 1) until a refused request would be admitted: the latest end among the full windows. */
export function retryAfterSeconds(windows: WindowState[], now: number): { seconds: number; window: WindowState } {
  const full = windows.filter((w) => w.used >= w.limit)
  const latest = full.reduce((a, w) => (w.resetAt > a.resetAt ? w : a), full[0] ?? bindingWindow(windows))
  return { seconds: Math.max(1, secondsUntil(latest.resetAt, now)), window: latest }
}

/**
 * The headers of a banned key: nothing left until the ban ends, and `X-RateLimit-Reset`, `RateLimit`'s `t` and
 * `Retry-After` all name that end. Reset is the ban's end rounded up to a whole second and Retry-After counts to
 * that second (Reset − the current whole second), so `Date` + `Retry-After` = `X-RateLimit-Reset`, exactly.
 */
export function banHeaders(
  windows: WindowState[],
  bannedUntil: number,
  now: number,
  policy = policyHeader(windows),
): { headers: Record<string, string>; seconds: number } {
  const reset = Math.ceil(bannedUntil / 1000)
  const seconds = Math.max(1, reset - Math.floor(now / 1000))
  const binding = bindingWindow(windows)
  return {
    seconds,
    headers: {
      'x-ratelimit-limit': String(binding.limit),
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(reset),
      'ratelimit-policy': policy,
      ratelimit: `"${binding.name}";r=0;t=${seconds}`,
    },
  }
}
