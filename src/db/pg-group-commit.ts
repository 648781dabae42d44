// Group commit for PostgreSQL. Through the pool every write was a connection of its own: one write(2) to send it,
// one wake-up of a backend, its own COMMIT. Instead, the writes that arrive in one turn of the event loop (single
// statements, and work that relies on nothing it read: engine.ts, writeTogether) run together on one pipelined
// connection, their statements interleaved, inside one transaction: BEGIN, every member's statements, COMMIT, sent in
// one write and answered in order, with one WAL flush for all of them. Nobody is answered before the COMMIT has
// returned, so a 201 still means committed.
//
// A failing member must fail alone. The members of a group share the transaction (no SAVEPOINT round trips: a
// pipeline cannot wait to learn that a statement failed before sending the next), so when any member fails (an
// error of its own or of the database), the whole group is rolled back and every member runs again on its own, in
// a transaction of its own on the pool: nothing of the group was committed, so running again is safe. The failing
// member then fails alone and the others commit. The same when the COMMIT itself is refused by the server (the
// transaction is then rolled back). Only when the COMMIT's answer is lost (the connection broke or timed out after
// it was sent) is the outcome unknown: every member then fails, with the database error (a 503 to the client,
// whose Idempotency-Key makes its retry safe).
import { Kysely, PostgresDialect } from 'kysely'
import type pg from 'pg'
import type { Work } from './group-commit.js'
import type { Database } from './schema.js'
import { isDatabaseUnavailable } from './unavailable.js'

/** Largest group; later arrivals wait for the next one. */
const MAX_GROUP = 64

interface Member {
  work: Work<unknown>
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

/** A pg Client's connection as far as we use it: the socket, to hold the writes of a turn together. */
type Socketed = { connection: { stream: { cork(): void; uncork(): void; writable: boolean } } }

interface Slot {
  client: pg.Client
  /** Statements through Kysely on this connection (the members' executor). */
  db: Kysely<Database>
  busy: boolean
}

/** A server's answer has a SQLSTATE; a broken or timed-out connection's error has none. */
const answeredByServer = (error: unknown): boolean =>
  typeof (error as { code?: unknown })?.code === 'string' && /^[0-9A-Z]{5}$/.test((error as { code: string }).code)

export function createPgGroupCommit({
  driver,
  config,
  connections,
  alone,
}: {
  driver: typeof pg
  config: pg.ClientConfig
  connections: number
  /** Runs one member by itself, in a transaction of its own (the pool's): the way back when its group fails. */
  alone: <T>(work: Work<T>) => Promise<T>
}) {
  const slots: (Slot | undefined)[] = Array.from({ length: connections }, () => undefined)
  const running = new Map<Kysely<Database>, Slot>()
  let waiting: Member[] = []
  let scheduled = false
  let closed = false

  function drop(index: number, slot: Slot): void {
    if (slots[index] !== slot) return
    slots[index] = undefined
    slot.client.end().catch(() => {})
  }

  function open(index: number): Slot {
    const client = new driver.Client({ ...config, pipeline: true } as pg.ClientConfig)
    // Statements go through Kysely as the members wrote them, on this one connection, in the order they are issued.
    const connection = {
      query: (text: string, values: unknown[]) =>
        client.query({ text, values, queryMode: 'extended' } as pg.QueryConfig),
      release: () => {},
    }
    const pool = { connect: async () => connection, end: async () => {} }
    const slot: Slot = {
      client,
      db: new Kysely<Database>({ dialect: new PostgresDialect({ pool: pool as never }) }),
      busy: false,
    }
    client.on('error', () => drop(index, slot))
    client.on('end', () => drop(index, slot))
    client.connect().catch(() => drop(index, slot))
    slots[index] = slot
    return slot
  }

  function freeSlot(): [number, Slot] | undefined {
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]
      if (slot === undefined) return [i, open(i)]
      if (!slot.busy) return [i, slot]
    }
    return undefined
  }

  /** The statements of a group's first turn leave in one write. */
  function hold(client: pg.Client): void {
    const stream = (client as unknown as Socketed).connection.stream
    if (!stream.writable) return
    stream.cork()
    setImmediate(() => stream.writable && stream.uncork())
  }

  const sql = (client: pg.Client, text: string): Promise<unknown> =>
    client.query({ text, queryMode: 'extended' } as pg.QueryConfig)

  async function runGroup(group: Member[], index: number, slot: Slot): Promise<void> {
    slot.busy = true
    running.set(slot.db, slot)
    const { client } = slot
    let settle: () => void
    try {
      hold(client)
      // Settled at once: a BEGIN that fails while the members still run must not be an unhandled rejection.
      const begin = sql(client, 'BEGIN').then(
        () => true,
        () => false,
      )
      const outcomes = await Promise.all(
        group.map((m) =>
          m.work(slot.db).then(
            (value) => ({ ok: true as const, value }),
            (error: unknown) => ({ ok: false as const, error }),
          ),
        ),
      )
      const began = await begin
      if (!began || outcomes.some((o) => !o.ok)) {
        // A connection that failed or timed out a statement is not asked for anything more: dropping it ends the
        // transaction (the server rolls it back), where a ROLLBACK would wait out another timeout first.
        const broken = !began || outcomes.some((o) => !o.ok && isDatabaseUnavailable(o.error))
        if (broken) drop(index, slot)
        else await sql(client, 'ROLLBACK').catch(() => drop(index, slot))
        settle = () => runAlone(group)
      } else {
        const committed = await sql(client, 'COMMIT').then(
          () => undefined,
          (error: unknown) => error as Error,
        )
        if (committed === undefined)
          settle = () => group.forEach((m, i) => m.resolve((outcomes[i] as { value: unknown }).value))
        else if (answeredByServer(committed)) settle = () => runAlone(group)
        else {
          drop(index, slot)
          settle = () => group.forEach((m) => m.reject(committed))
        }
      }
    } finally {
      running.delete(slot.db)
      slot.busy = false
    }
    settle()
    if (waiting.length > 0) schedule()
  }

  function runAlone(group: Member[]): void {
    for (const m of group) alone(m.work).then(m.resolve, m.reject)
  }

  function flush(): void {
    scheduled = false
    while (waiting.length > 0) {
      const free = freeSlot()
      // Every connection has a group under way: the next one to finish takes these.
      if (free === undefined) return
      const group = waiting.slice(0, MAX_GROUP)
      waiting = waiting.slice(group.length)
      void runGroup(group, ...free).catch((error: unknown) => group.forEach((m) => m.reject(error)))
    }
  }

  function schedule(): void {
    if (scheduled) return
    scheduled = true
    // After the I/O phase: every request read in this turn of the loop joins the group.
    setImmediate(flush)
  }

  return {
    /** Runs `work` in the transaction of its group; resolves once that transaction is committed. */
    transaction<T>(work: Work<T>): Promise<T> {
      if (closed) return alone(work)
      return new Promise<T>((resolve, reject) => {
        waiting.push({ work, resolve: resolve as (value: unknown) => void, reject })
        schedule()
      })
    },
    /** A running group's connection, when `executor` is one (its statements may run straight on it). */
    clientOf: (executor: Kysely<Database>): pg.Client | undefined => running.get(executor)?.client,
    open: () => slots.filter((s) => s !== undefined).length,
    async close(): Promise<void> {
      closed = true
      const open = slots.filter((s): s is Slot => s !== undefined)
      slots.fill(undefined)
      await Promise.all(open.map((s) => s.client.end().catch(() => {})))
    },
  }
}

export type PgGroupCommit = ReturnType<typeof createPgGroupCommit>
