// A hang guard: fails the test when something that must answer promptly does not settle at all. The bound is
// generous on purpose (it catches hangs, it does not measure latency), so a slow machine cannot fail it.
const HANG_GUARD_MS = 10_000

export async function within<T>(promise: Promise<T>, what: string, ms = HANG_GUARD_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms: it hangs`)), ms)
  })
  try {
    return await Promise.race([promise, guard])
  } finally {
    clearTimeout(timer)
  }
}

/** Polls `probe` until it returns a value other than undefined, for at most `ms`; for a process or port to come up. */
export async function pollUntil<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  ms = 20_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}
