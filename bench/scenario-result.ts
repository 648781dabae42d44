// One scenario's measured figures: what the report prints and the budgets are checked against.
import type { DeliveryFigures } from './receiver.js'

export interface ScenarioResult {
  target: string
  scenario: string
  description: string
  rps: number
  p50: number
  p99: number
  baselineRps: number
  ratio: number
  /** Mean latency, ms (median of the rounds): finer than the whole-millisecond percentiles. */
  meanMs: number
  /** The service's CPU time per request (all its threads and workers), in microseconds; median of the rounds. */
  cpuUs: number
  /** The same of the main threads alone (the event loops serving requests; not the webhook delivery thread). */
  mainCpuUs: number
  unexpected: number
  rssMb: number
  /** Scenarios whose writes are webhook events: how soon they reached the receiver (bench/receiver.ts). */
  delivery?: DeliveryFigures
}
