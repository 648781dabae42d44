// The receiver of `create-subscribed`'s webhook deliveries, run as a process of its own by bench/receiver.ts (a
// healthy integrator's server is not the load generator: sharing its event loop, answers waited for the load's
// turns and the deliveries looked slower than they were). Answers every POST 204 and notes how long after the change
// each event arrived; the benchmark asks for the figures over IPC.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { median } from './measure.js'
import type { DeliveryFigures, ReceiverReply, ReceiverRequest } from './receiver.js'

const quantile = (sorted: number[], q: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!

async function startReceiver() {
  const lags = new Map<string, number>()
  let waiter: (() => void) | undefined
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      res.writeHead(204).end()
      const { type, timestamp } = JSON.parse(Buffer.concat(chunks).toString()) as { type: string; timestamp: string }
      // The scenario's events only: the seeded keys' own (key.created) may still be on their way.
      if (type !== 'pet.created') return
      // At least once: a second delivery of an event is not a second event.
      const id = String(req.headers['webhook-id'])
      if (!lags.has(id)) lags.set(id, Date.now() - Date.parse(timestamp))
      waiter?.()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
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
        // Writes still in flight when a load run stopped were not counted in `expected`; their events arrive too.
        within5s: sorted.filter((ms) => ms <= 5_000).length / Math.max(1, expected, sorted.length),
      }
    },
  }
}

const receiver = await startReceiver()
const reply = (message: ReceiverReply) => process.send!(message)
process.on('message', (message: ReceiverRequest) => {
  if (message.type === 'reset') {
    receiver.reset()
    reply({ type: 'reset' })
  } else void receiver.figures(message.expected).then((figures) => reply({ type: 'figures', figures }))
})
process.on('disconnect', () => process.exit(0))
reply({ type: 'ready', url: receiver.url })
