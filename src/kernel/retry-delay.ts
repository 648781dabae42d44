// When a failed delivery is tried again: the messages' worker and the webhooks' share one schedule rule.

/**
 * The delay before the retry that follows failed attempt number `failed` (1 for the first attempt): full jitter
 * over the band between the previous step of the schedule and this one (0–5 s, 5 s–5 min, 5–30 min … by
 * default). Retries of messages that failed together spread out instead of hitting a recovering receiver at once,
 * and the whole schedule still spans at least the sum of the steps before the last (so a receiver down for an
 * hour loses nothing, whatever the draws).
 */
export function retryDelay(schedule: number[], failed: number, random: () => number): number {
  const step = (n: number) => schedule[Math.min(n, schedule.length - 1)] ?? 0
  const low = failed >= 2 ? step(failed - 2) : 0
  const high = step(failed - 1)
  return Math.round(low + random() * Math.max(0, high - low))
}
