// The receiver of `create-subscribed`'s webhook deliveries, in the benchmark's process (its CPU is the load
// generator's side, not the service's): answers every POST 204, as a healthy integrator does, and notes how long
// after the change each event arrived (issue 36: on a healthy receiver, 95 % of events arrive within 5 s).
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { median } from './measure.js'

export interface DeliveryFigures {
  /** Events the service was asked to record (its 201s) and events that arrived. */
  expected: number
  arrived: number
  /** From the event's `timestamp` (the change, on the service's clock: the same host) to its arrival. */
  p50Ms: number
  p95Ms: number
  maxMs: number
  /** Share of the expected events that arrived within 5 s of their change. */
  within5s: number
}

const quantile = (sorted: number[], q: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!

export async function startReceiver() {
  const lags = new Map<string, number>()
  let waiter: (() => void) | undefined
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      res.writeHead(204).end()
      const { timestamp } = JSON.parse(Buffer.concat(chunks).toString()) as { timestamp: string }
      // At least once: a second delivery of an event is not a second event.
      const id = String(req.headers['webhook-id'])
      if (!lags.has(id)) lags.set(id, Date.now() - Date.parse(timestamp))
      waiter?.()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  server.unref()
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/bench-hooks`,
    reset: () => lags.clear(),
    /**
     * Waits until `expected` events arrived, or none arrived for `quietMs`; then the figures. Events are counted
     * by their arrival, whatever their order.
     */
    async figures(expected: number, quietMs = 30_000): Promise<DeliveryFigures> {
      while (lags.size < expected) {
        const before = lags.size
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, quietMs)
          waiter = () => {
            clearTimeout(timer)
            resolve()
          }
        })
        waiter = undefined
        if (lags.size === before) break
      }
      const sorted = [...lags.values()].sort((a, b) => a - b)
      return {
        expected,
        arrived: sorted.length,
        p50Ms: median(sorted),
        p95Ms: quantile(sorted, 0.95),
        maxMs: sorted.at(-1) ?? Number.NaN,
        within5s: sorted.filter((ms) => ms <= 5_000).length / Math.max(1, expected),
      }
    },
  }
}

export const deliveryLine = (d: DeliveryFigures) =>
  `deliveries: ${d.arrived} of ${d.expected} events arrived; after the change p50 ${Math.round(d.p50Ms)} ms, ` +
  `p95 ${Math.round(d.p95Ms)} ms, max ${Math.round(d.maxMs)} ms; ${(d.within5s * 100).toFixed(1)} % within 5 s`
