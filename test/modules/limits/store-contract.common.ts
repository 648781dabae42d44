// Shared by the parts of the RateLimitStore contract: fixed instants, the two windows, unique subjects.
import type { RateLimitStore, WindowSpec } from '../../../src/modules/limits/rate-limit.store.js'

export const MINUTE = 60_000
/** 2027-01-01T00:00:00Z: a minute and a day boundary. */
export const T0 = Date.UTC(2027, 0, 1)
export const DAY_END = T0 + 86_400_000

export const windows = (perMinute: number, perDay: number): WindowSpec[] => [
  { name: 'minute', limit: perMinute, seconds: 60 },
  { name: 'day', limit: perDay, seconds: 86_400 },
]

let counter = 0
/** A subject no other test uses, so a shared store (e.g. one Redis) cannot leak counts between tests. */
export const fresh = (label: string) => `${label}:${process.pid}:${Date.now()}:${++counter}`

export type After = { after: (fn: () => Promise<void>) => void }
export type Setup = (t: After) => Promise<RateLimitStore>
/** Registers one contract test (with the suite's skip reason, if any). */
export type Register = (name: string, fn: (t: After) => Promise<void>) => void
