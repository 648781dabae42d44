// The store without Redis on the embedded database: decisions stay in this process's memory (memory.store.ts,
// exact and synchronous), and what they change is written behind to the database, grouped, about once a second
// (and whole at close), then read back at start. So a restart keeps each account's minute and day and each ban:
// exactly after a clean stop; after a crash (kill -9, power) at most the last second of counting is lost. The
// request path never waits for a write. One process per database file (more than one worker needs Redis).
import type { Kysely } from 'kysely'
import type { Database } from '../../db/schema.js'
import type { Logger } from '../../kernel/logger.js'
import { reasonOf } from '../../kernel/reason.js'
import { createMemoryStore, type StoreState } from './memory.store.js'
import type { RateLimitStore } from './rate-limit.store.js'

const WRITE_EVERY_MS = 1_000
/** Subjects per statement (SQLite's bound parameters are limited). */
const CHUNK = 200

const chunks = <T>(items: T[]): T[][] =>
  Array.from({ length: Math.ceil(items.length / CHUNK) }, (_, i) => items.slice(i * CHUNK, (i + 1) * CHUNK))

async function load(db: Kysely<Database>, now: number): Promise<StoreState> {
  const [counters, bans] = await Promise.all([
    db.selectFrom('rate_limit_counters').selectAll().where('window_end', '>', now).execute(),
    db.selectFrom('rate_limit_bans').selectAll().where('until', '>', now).execute(),
  ])
  const state: StoreState = { windows: [], refusals: [], bans: [] }
  for (const r of counters) {
    const row = {
      subject: r.subject,
      seconds: Number(r.seconds),
      start: Number(r.window_start),
      end: Number(r.window_end),
    }
    if (r.kind === 'window') state.windows.push({ ...row, name: r.name, count: Number(r.count) })
    else state.refusals.push({ ...row, count: Number(r.count) })
  }
  for (const b of bans) state.bans.push({ subject: b.subject, until: Number(b.until) })
  return state
}

/** Replaces the kept rows of these subjects with their state now, and drops what has ended, in one transaction. */
async function save(db: Kysely<Database>, subjects: string[], state: StoreState, now: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const some of chunks(subjects)) {
      await trx.deleteFrom('rate_limit_counters').where('subject', 'in', some).execute()
      await trx.deleteFrom('rate_limit_bans').where('subject', 'in', some).execute()
    }
    const rows = [
      ...state.windows.map((w) => ({ ...w, kind: 'window' as const })),
      ...state.refusals.map((r) => ({ ...r, kind: 'refusals' as const, name: '' })),
    ].map((r) => ({
      subject: r.subject,
      kind: r.kind,
      name: r.name,
      seconds: r.seconds,
      window_start: r.start,
      window_end: r.end,
      count: r.count,
    }))
    for (const some of chunks(rows)) await trx.insertInto('rate_limit_counters').values(some).execute()
    for (const some of chunks(state.bans)) await trx.insertInto('rate_limit_bans').values(some).execute()
    await trx.deleteFrom('rate_limit_counters').where('window_end', '<=', now).execute()
    await trx.deleteFrom('rate_limit_bans').where('until', '<=', now).execute()
  })
}

export async function createPersistedStore({
  db,
  log,
  now = Date.now,
  writeEveryMs = WRITE_EVERY_MS,
}: {
  db: Kysely<Database>
  log: Logger
  now?: () => number
  writeEveryMs?: number
}): Promise<RateLimitStore> {
  const changed = new Set<string>()
  const memory = createMemoryStore({ onChange: (subject) => changed.add(subject) })
  memory.restore(await load(db, now()), now())
  let writing = Promise.resolve()

  /** Writes what changed since the last write; a failure is logged and the subjects are written next time. */
  const write = () => {
    writing = writing.then(async () => {
      if (changed.size === 0) return
      const subjects = [...changed]
      changed.clear()
      const at = now()
      try {
        await save(db, subjects, memory.stateOf(subjects, at), at)
      } catch (err) {
        for (const subject of subjects) changed.add(subject)
        log.warn({ reason: reasonOf(err) }, 'writing rate-limit counters failed; they are kept for the next try')
      }
    })
    return writing
  }
  const timer = setInterval(write, writeEveryMs)
  timer.unref()

  return {
    consume: (input) => memory.consume(input),
    usage: (input) => memory.usage(input),
    bannedUntil: (input) => memory.bannedUntil(input),
    unban: (subject) => memory.unban(subject),
    ping: () => memory.ping(),
    async close() {
      clearInterval(timer)
      await write()
      await memory.close()
    },
  }
}
