// One load run with autocannon (in this, the third, process) and the figures we keep from it.
import autocannon from 'autocannon'
import type { Scenario } from './scenarios.js'

export interface RunFigures {
  rps: number
  p50: number
  p99: number
  meanMs: number
  /** Responses whose status was not the scenario's expected one. */
  unexpected: number
  total: number
}

/**
 * `requests`, when given, replaces `seconds`: that many requests and no more (a smoke run that proves a scenario
 * works; its figures measure nothing).
 */
export async function load(
  url: string,
  scenario: Scenario,
  options: { connections: number; seconds: number; requests?: number | undefined },
): Promise<RunFigures> {
  let n = 0
  // A smoke run samples every 100 ms: at the default of a second, each of its short runs would last a second.
  const sampleMs = options.requests === undefined ? 1000 : 100
  const result = await autocannon({
    url,
    connections: options.connections,
    sampleInt: sampleMs,
    ...(options.requests === undefined ? { duration: options.seconds } : { amount: options.requests }),
    requests: [
      {
        method: scenario.method,
        path: scenario.path,
        headers: scenario.headers,
        body: scenario.body,
        ...(scenario.uniqueIdempotencyKey
          ? {
              setupRequest: (req: Record<string, unknown>) => ({
                ...req,
                headers: { ...(req.headers as object), 'idempotency-key': `bench-${process.pid}-${Date.now()}-${n++}` },
              }),
            }
          : {}),
      },
    ],
  } as autocannon.Options)
  const byStatus = result.statusCodeStats as unknown as Record<string, { count: number }>
  const total = Object.values(byStatus).reduce((sum, s) => sum + Number(s.count), 0)
  const expected = Number(byStatus[String(scenario.expectStatus)]?.count ?? 0)
  return {
    rps: (result.requests.average * 1000) / sampleMs,
    p50: result.latency.p50,
    p99: result.latency.p99,
    meanMs: result.latency.average,
    unexpected: total - expected + result.errors + result.timeouts,
    total,
  }
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
