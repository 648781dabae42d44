// The hot reads on PostgreSQL (a page of pets, a pet, a key look-up on a cache miss) go over a few pipelined
// connections instead of the pool: every read of one turn of the event loop is written to one connection in one
// write, and PostgreSQL answers them in order without waiting for us in between.
//
// Why: through the pool each read took a connection of its own, one write(2) to send and one wake-up of a
// PostgreSQL backend to answer it; with fifty requests in flight the writes (the queries' and the responses')
// were a quarter of the service's CPU samples (BENCHMARKS.md, entry 18). Pipelined, one write and one wake-up of
// one backend serve every read of a turn. Writes stay on the pool: commits on one pipelined connection would
// each wait for their own WAL flush in turn, where the pool's connections share flushes.
//
// Each read is still its own statement in its own implicit transaction (pg sends a Sync after each), so an error
// in one fails that one only. A connection that errors, ends or times out a read is dropped at once and a new
// one opened for the next read; the reads sent on it fail, and the caller answers 503 as with the pool.
import type pg from 'pg'

export interface PipelinedReads {
  /** Runs a named prepared statement that only reads; resolves with its rows. */
  query(name: string, text: string, values: unknown[]): Promise<unknown[]>
  /** Connections open now (for /metrics). */
  open(): number
  close(): Promise<void>
}

/** A pg Client's connection as far as we use it: the socket, to hold the writes of a turn together. */
type Socketed = { connection: { stream: { cork(): void; uncork(): void; writable: boolean } } }

export function createPipelinedReads({
  driver,
  config,
  connections,
}: {
  driver: typeof pg
  config: pg.ClientConfig
  connections: number
}): PipelinedReads {
  const slots: (pg.Client | undefined)[] = Array.from({ length: connections }, () => undefined)
  /** The connection this turn's reads go to. */
  let next = 0
  let closed = false
  // Connections corked in this turn (one, unless one was dropped during it); uncorked (written out) at its end.
  let corked: pg.Client[] = []

  function drop(slot: number, client: pg.Client): void {
    if (slots[slot] !== client) return
    slots[slot] = undefined
    client.end().catch(() => {})
  }

  function connection(slot: number): pg.Client {
    const existing = slots[slot]
    if (existing !== undefined) return existing
    const client = new driver.Client({ ...config, pipeline: true } as pg.ClientConfig)
    // The reads under way fail through their own promises; without a listener the event would crash the process.
    client.on('error', () => drop(slot, client))
    client.on('end', () => drop(slot, client))
    client.connect().catch(() => drop(slot, client))
    slots[slot] = client
    return client
  }

  function uncorkAll(): void {
    const held = corked
    corked = []
    // The next turn's reads go to the next connection: one write per turn, and the backends take turns.
    next = (next + 1) % connections
    for (const client of held) {
      const stream = (client as unknown as Socketed).connection.stream
      if (stream.writable) stream.uncork()
    }
  }

  function cork(client: pg.Client): void {
    if (corked.includes(client)) return
    const stream = (client as unknown as Socketed).connection.stream
    if (!stream.writable) return
    stream.cork()
    if (corked.length === 0) setImmediate(uncorkAll)
    corked.push(client)
  }

  return {
    query(name, text, values) {
      if (closed) return Promise.reject(new Error('Client was closed and is not queryable'))
      const slot = next
      const client = connection(slot)
      cork(client)
      return client.query({ name, text, values }).then(
        (result) => result.rows,
        (error: unknown) => {
          // A read timed out: the answers behind it may never come, so no later read may be sent on it.
          if (error instanceof Error && error.message === 'Query read timeout') drop(slot, client)
          throw error
        },
      )
    },
    open: () => slots.filter((c) => c !== undefined).length,
    async close() {
      closed = true
      const open = slots.filter((c): c is pg.Client => c !== undefined)
      slots.fill(undefined)
      await Promise.all(open.map((c) => c.end().catch(() => {})))
    },
  }
}
