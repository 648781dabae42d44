// Time is a dependency: the app takes a clock so tests can move it (sunsets, windows) without sleeping.

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

/** A clock that only moves when told to. */
export function createManualClock(start: number | Date = Date.now()) {
  let current = typeof start === 'number' ? start : start.getTime()
  return {
    now: () => current,
    set(to: number | Date) {
      current = typeof to === 'number' ? to : to.getTime()
    },
    advance(ms: number) {
      current += ms
    },
  }
}
