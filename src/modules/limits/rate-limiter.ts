// The limiting policy: which windows apply to whom, and what a refusal looks like. Accounts are limited
// per minute and per day by plan (over all their keys); a key that keeps going while limited is banned;
// requests without a valid key are limited per client address.
import type { Quota } from '../accounts/plans.js'
import type { Clock } from '../../kernel/clock.js'
import { banHeaders, policyHeader, rateLimitHeaders, retryAfterSeconds } from './rate-limit.headers.js'
import type { RateLimitStore, WindowSpec } from './rate-limit.store.js'

interface LimitsConfig {
  unauthenticatedPerMinute: number
  banThreshold: number
  banSeconds: number
}

/** Why a request is refused: its quota (or its address's) is spent, or its key is banned for going on while refused. */
export interface LimitRefusal {
  reason: 'rate_limit_exceeded' | 'temporarily_banned'
  /** What to tell the caller, with when to retry. */
  message: string
  retryAfterSeconds: number
}

interface LimitOutcome {
  headers: Record<string, string>
  /** Set when the request is refused (the API answers 429: api/contract/domain-errors.ts). */
  refusal?: LimitRefusal
}

export function accountWindows(quota: Quota): WindowSpec[] {
  return [
    { name: 'minute', limit: quota.perMinute, seconds: 60 },
    { name: 'day', limit: quota.perDay, seconds: 86_400 },
  ]
}

/** Whose quota a key's requests count against in the store: its account's. */
export const accountSubject = (accountId: string) => `account:${accountId}`
/** Who is banned for repeating requests while limited: the key. */
export const keySubject = (keyId: string) => `key:${keyId}`

const describeWindow = (w: WindowSpec) => `${w.limit} requests per ${w.name}`

interface LimitEvents {
  /**
   * `limit`: what refused it (the account's `minute` or `day` window, the key's `ban`, the `address`'s limit); `plan`:
   * the account's.
   */
  refused?: (
    reason: 'rate_limit_exceeded' | 'temporarily_banned',
    subject: 'account' | 'address',
    by: { limit: 'minute' | 'day' | 'ban' | 'address'; plan?: string },
  ) => void
  /** A key's ban started (its account's webhooks say so). */
  banned?: (ban: { accountId: string; keyId: string; until: number }) => void
  /**
   * This admitted request was the one that took the account's day past `threshold` % of its quota (80 or 100): each
   * count is one request's, so each crossing is seen once (the event is recorded once a day whatever).
   */
  quotaCrossed?: (crossing: { accountId: string; threshold: number; used: number; limit: number; day: string }) => void
}

const THRESHOLDS = [80, 100]

/** The threshold this count is the first to reach (`used` requests of `limit`), if any. */
function crossed(used: number, limit: number): number | undefined {
  return THRESHOLDS.find((t) => used === Math.ceil((limit * t) / 100))
}

/** Windows and their policy header, made once per quota rather than on every request. */
interface Policy {
  windows: WindowSpec[]
  header: string
}

function policyOf(windows: WindowSpec[]): Policy {
  return { windows, header: policyHeader(windows) }
}

export function createRateLimiter({
  store,
  clock,
  limits,
  events = {},
}: {
  store: RateLimitStore
  clock: Clock
  limits: LimitsConfig
  events?: LimitEvents
}) {
  const addressPolicy = policyOf([{ name: 'minute', limit: limits.unauthenticatedPerMinute, seconds: 60 }])
  const accountPolicies = new Map<number, Map<number, Policy>>()

  function accountPolicy(quota: Quota): Policy {
    let byDay = accountPolicies.get(quota.perMinute)
    if (byDay === undefined) accountPolicies.set(quota.perMinute, (byDay = new Map()))
    let policy = byDay.get(quota.perDay)
    if (policy === undefined) byDay.set(quota.perDay, (policy = policyOf(accountWindows(quota))))
    return policy
  }

  async function decide(
    subject: string,
    policy: Policy,
    owner?: { accountId: string; keyId: string },
    plan?: string,
  ): Promise<LimitOutcome> {
    const now = clock.now()
    const ban = owner
      ? { subject: keySubject(owner.keyId), threshold: limits.banThreshold, durationMs: limits.banSeconds * 1000 }
      : undefined
    const result = await store.consume({ subject, windows: policy.windows, now, ban })
    // A store may enforce other limits than asked (the Redis fallback divides them): the headers say what holds.
    const asked = result.windows.every((w, i) => w.limit === policy.windows[i]?.limit)
    const policyValue = asked ? policy.header : undefined
    if (result.admitted) {
      const day = result.windows.find((w) => w.name === 'day')
      const threshold = day && owner && events.quotaCrossed ? crossed(day.used, day.limit) : undefined
      if (threshold !== undefined) {
        const date = new Date(day!.resetAt - 1).toISOString().slice(0, 10)
        events.quotaCrossed!({ accountId: owner!.accountId, threshold, used: day!.used, limit: day!.limit, day: date })
      }
      return { headers: rateLimitHeaders(result.windows, now, policyValue) }
    }
    const kind = subject.startsWith('account:') ? 'account' : 'address'
    if (result.banStarted) {
      const until = result.bannedUntil ?? now + limits.banSeconds * 1000
      if (owner) events.banned?.({ ...owner, until })
    }
    const retry = retryAfterSeconds(result.windows, now)
    const limit =
      kind === 'address'
        ? 'address'
        : result.bannedUntil !== undefined
          ? 'ban'
          : (retry.window.name as 'minute' | 'day')
    events.refused?.(result.bannedUntil === undefined ? 'rate_limit_exceeded' : 'temporarily_banned', kind, {
      limit,
      plan,
    })
    if (result.bannedUntil !== undefined) {
      // The quota may be free again (a later minute) while the ban holds: the headers describe the ban.
      const ban = banHeaders(result.windows, result.bannedUntil, now, policyValue)
      const message =
        `This API key is temporarily banned for repeating requests while rate limited; ` + `retry in ${ban.seconds} s.`
      return {
        headers: ban.headers,
        refusal: { reason: 'temporarily_banned', message, retryAfterSeconds: ban.seconds },
      }
    }
    const headers = rateLimitHeaders(result.windows, now, policyValue)
    const message =
      `Rate limit exceeded: ${describeWindow(retry.window)}. Retry in ${retry.seconds} s; repeated ` +
      `requests while limited lead to a temporary ban.`
    return { headers, refusal: { reason: 'rate_limit_exceeded', message, retryAfterSeconds: retry.seconds } }
  }

  return {
    /** Counts one request of an authenticated key against its account's plan. */
    forAccount: (input: { accountId: string; keyId: string; quota: Quota; plan?: string }) =>
      decide(
        accountSubject(input.accountId),
        accountPolicy(input.quota),
        { accountId: input.accountId, keyId: input.keyId },
        input.plan,
      ),
    /** Counts one request that carries no valid key against the client address. */
    forAddress: (address: string) => decide(`address:${address}`, addressPolicy),
    /** The address's headers without counting anything (a request we failed to judge, e.g. the database is down). */
    async addressHeaders(address: string): Promise<Record<string, string>> {
      const now = clock.now()
      const { windows } = await store.usage({ subject: `address:${address}`, windows: addressPolicy.windows, now })
      const asked = windows.every((w, i) => w.limit === addressPolicy.windows[i]?.limit)
      return rateLimitHeaders(windows, now, asked ? addressPolicy.header : undefined)
    },
    store,
  }
}

export type RateLimiter = ReturnType<typeof createRateLimiter>
