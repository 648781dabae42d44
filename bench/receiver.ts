// The receiver of `create-subscribed`'s webhook deliveries (bench/receiver-process.ts), in a process of its own
// beside the load generator: answers every POST 204, as a healthy integrator does, and notes how long after the
// change each event arrived (issue 36: on a healthy receiver, 95 % of events arrive within 5 s).
import { fork } from 'node:child_process'
import { once } from 'node:events'

export interface DeliveryFigures {
  /**
   * Events the service was asked to record (the 201s the load counted; writes still in flight when a run stopped
   * come on top) and events that arrived.
   */
  expected: number
  arrived: number
  /** From the event's `timestamp` (the change, on the service's clock: the same host) to its arrival. */
  p50Ms: number
  p95Ms: number
  maxMs: number
  /** Share of the events (expected, or arrived when more did) that arrived within 5 s of their change. */
  within5s: number
}

export type ReceiverRequest = { type: 'reset' } | { type: 'figures'; expected: number }
export type ReceiverReply =
  | { type: 'ready'; url: string }
  | { type: 'reset' }
  | { type: 'figures'; figures: DeliveryFigures }

export async function startReceiver() {
  const child = fork(new URL('./receiver-process.ts', import.meta.url), {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const next = async <T extends ReceiverReply['type']>(type: T) => {
    for (;;) {
      const [message] = (await once(child, 'message')) as [ReceiverReply]
      if (message.type === type) return message as Extract<ReceiverReply, { type: T }>
    }
  }
  const { url } = await next('ready')
  // The benchmark's process exits when it is done: the receiver goes with it.
  child.unref()
  child.channel?.unref()
  const ask = async <T extends ReceiverReply['type']>(request: ReceiverRequest, type: T) => {
    // Held open while an answer is awaited; let go between questions.
    child.channel?.ref()
    try {
      const reply = next(type)
      child.send(request)
      return await reply
    } finally {
      child.channel?.unref()
    }
  }
  return {
    url,
    reset: async () => {
      await ask({ type: 'reset' }, 'reset')
    },
    /**
     * Waits until `expected` events arrived, or none arrived for 30 s; then the figures. Events are counted by their
     * arrival, whatever their order.
     */
    figures: async (expected: number) => (await ask({ type: 'figures', expected }, 'figures')).figures,
  }
}

export const deliveryLine = (d: DeliveryFigures) =>
  `deliveries: ${d.arrived} of ${d.expected} events arrived; after the change p50 ${Math.round(d.p50Ms)} ms, ` +
  `p95 ${Math.round(d.p95Ms)} ms, max ${Math.round(d.maxMs)} ms; ${(d.within5s * 100).toFixed(1)} % within 5 s`
