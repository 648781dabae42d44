// Changes to API keys and accounts, announced through PostgreSQL's LISTEN/NOTIFY so that every instance drops
// its cached key look-ups (key-cache.ts). The announcement is made inside the changing transaction: PostgreSQL
// delivers it to every listener when, and only if, that transaction commits, so no listener hears of a change
// before it can read it, and none misses one while its connection stays up.
import { sql, type Kysely } from 'kysely'
import type pg from 'pg'
import type { Database } from '../../db/schema.js'
import { createOutageLog } from '../../ops/outage-log.js'
import type { KeyCache } from './key-cache.js'

/** One channel per database; schemas sharing a database share it (a change elsewhere only empties a cache). */
const KEY_CHANGES_CHANNEL = 'petstore_key_changes'
const RECONNECT_MS = 1_000

/**
 * Announces, in `executor`'s transaction, that what key look-ups return has changed. `what`, the payload, names
 * the kind of change for anyone watching the channel.
 */
export async function announceKeyChange(executor: Kysely<Database>, what: string): Promise<void> {
  await sql`select pg_notify(${KEY_CHANGES_CHANNEL}, ${what})`.execute(executor)
}

interface Log {
  warn: (obj: object, msg: string) => void
  info: (obj: object, msg: string) => void
}

interface KeyChangesListener {
  close: () => Promise<void>
}

/**
 * Listens on a connection of its own (made like the pool's, outside it: a LISTEN belongs to one session) and
 * keeps `cache` told whether it listens. Dropped, it tries again every second; meanwhile the cache is bypassed.
 */
export function listenForKeyChanges({
  pool,
  cache,
  log,
}: {
  pool: pg.Pool
  cache: KeyCache
  log?: Log
}): KeyChangesListener {
  const Client = (pool as unknown as { Client: typeof pg.Client }).Client
  const options = (pool as unknown as { options: pg.ClientConfig }).options
  let current: pg.Client | undefined
  let closed = false
  let retry: NodeJS.Timeout | undefined
  let connecting: Promise<void> = Promise.resolve()
  // One warning when the channel is lost, a count of failed reconnections every 30 s, one line when it is back.
  const outage = log
    ? createOutageLog({
        dependency: 'key-change channel',
        log,
        startMessage: (reason) =>
          `not listening for API key changes (${reason}): key look-ups go to the database until it is back`,
        endMessage: 'listening for API key changes again',
      })
    : undefined

  function lost(error: unknown): void {
    if (closed) return
    outage?.failed(error)
    retry = setTimeout(() => (connecting = connect()), RECONNECT_MS)
    retry.unref()
  }

  async function connect(): Promise<void> {
    const client = new Client(options)
    // Errors end the connection; 'end' is where the loss is handled.
    client.on('error', () => {})
    client.on('notification', () => cache.invalidate())
    client.on('end', () => {
      if (current !== client) return
      current = undefined
      cache.setListening(false)
      lost(new Error('the connection ended'))
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${KEY_CHANGES_CHANNEL}`)
    } catch (error) {
      client.end().catch(() => {})
      lost(error)
      return
    }
    if (closed) {
      await client.end().catch(() => {})
      return
    }
    current = client
    cache.setListening(true)
    outage?.ok()
  }

  connecting = connect()
  return {
    async close() {
      closed = true
      clearTimeout(retry)
      await connecting
      const client = current
      current = undefined
      cache.setListening(false)
      await client?.end().catch(() => {})
    },
  }
}
