// Responses finished in one turn of the event loop are written together, at the end of that turn.
//
// Why: writing a response to a peer that waits for it wakes the peer, and a wake-up on another core is
// expensive (on a virtual machine above all). `perf` of list-20 under load showed ~21 µs of kernel time in the
// write(2) of each response when responses went out one by one, against ~4 µs for a server whose peer is still
// awake when the next response arrives. Written back to back, one wake-up serves the whole turn: the
// consolidation Netty's FlushConsolidationHandler does. No response waits longer than the end of its turn.
//
// Responses finished in the check phase (a SQLite commit group answers its members from a setImmediate) would
// otherwise wait for the next turn; the group calls `flushWhenSettled`, and they go out as soon as the promises
// it settled have run.
import type { FastifyReply, FastifyRequest } from 'fastify'

type Done = (error?: Error | null, payload?: unknown) => void

export function createSendBatcher() {
  let waiting: (() => void)[] = []
  let immediate = false
  let settling = false
  // Shutting down: every response from now on, held ones included, tells its client to send nothing more on the
  // connection, and Node closes it once the response is written. Without it a client sends its next request on
  // the kept-alive connection just as the server closes it (a reset, after the request was sent).
  let closing = false

  function flush(): void {
    const ready = waiting
    waiting = []
    for (const send of ready) send()
  }
  const flushImmediate = () => {
    immediate = false
    flush()
  }
  const flushSettled = () => {
    settling = false
    flush()
  }

  return {
    /** Root onSend hook: holds the response until the end of the turn. */
    onSend(_request: FastifyRequest, reply: FastifyReply, payload: unknown, done: Done): void {
      waiting.push(() => {
        if (closing) reply.header('connection', 'close')
        // What Fastify does for an async onSend hook: a write that throws becomes the request's error.
        try {
          done(null, payload)
        } catch (error) {
          done(error as Error)
        }
      })
      if (immediate || settling) return
      immediate = true
      setImmediate(flushImmediate)
    },

    /** From now on every response says `Connection: close` (the listeners are closing). */
    closeConnections(): void {
      closing = true
    },

    /**
     * Sends what is held once the microtasks queued so far, and those they queue, have run: a nextTick queued
     * from a microtask runs when the microtask queue is empty.
     */
    flushWhenSettled(): void {
      if (settling) return
      settling = true
      queueMicrotask(() => process.nextTick(flushSettled))
    },
  }
}

export type SendBatcher = ReturnType<typeof createSendBatcher>
