// The storage behind rate limiting. A store does the whole decision for one request in one atomic step:
// check every window, consume from all of them only if all have room, and count refusals towards a ban.
// The in-memory store does it in one synchronous critical section; a Redis store does it in one Lua script.

export interface WindowSpec {
  /** Name used in the IETF headers (`"minute"`, `"day"`). */
  name: string
  limit: number
  seconds: number
}

export interface WindowState extends WindowSpec {
  /** Requests counted in the current window, this one included when it was admitted. */
  used: number
  /** When the current window ends (ms since the epoch); windows are aligned to the epoch (UTC). */
  resetAt: number
}

export interface BanRule {
  /** Who gets banned (an API key id). */
  subject: string
  /** Refused requests allowed within one window of the first (shortest) policy; one more starts the ban. */
  threshold: number
  durationMs: number
}

export interface ConsumeInput {
  /** Whose quota is counted (an account, or a client address). */
  subject: string
  windows: WindowSpec[]
  now: number
  ban?: BanRule
}

export interface ConsumeResult {
  admitted: boolean
  windows: WindowState[]
  /** Set when the ban subject is banned (already, or from this request on): ms since the epoch. */
  bannedUntil?: number
  /** True when this very request started the ban. */
  banStarted?: boolean
}

export interface SubjectUsage {
  windows: WindowState[]
}

export interface RateLimitStore {
  consume(input: ConsumeInput): Promise<ConsumeResult>
  /** Current counts without consuming anything. */
  usage(input: { subject: string; windows: WindowSpec[]; now: number }): Promise<SubjectUsage>
  /** The end of a ban in force, if any. */
  bannedUntil(input: { subject: string; now: number }): Promise<number | undefined>
  /** Lifts a ban; true if there was one. */
  unban(subject: string): Promise<boolean>
  /** Resolves when the store can answer (readiness check); rejects otherwise. */
  ping(): Promise<void>
  close(): Promise<void>
}

/** Start and end (ms) of the window of `seconds` that contains `now`. */
export function windowBounds(now: number, seconds: number): { start: number; end: number } {
  const size = seconds * 1000
  const start = Math.floor(now / size) * size
  return { start, end: start + size }
}
