// An event's id: `evt_`, its time in milliseconds (12 hex digits), then 80 random bits (20 hex digits). Ordered by
// time, new ids land at the end of webhook_events' unique index instead of on a random page of it: with random ids
// every event dirtied a page of its own there, to be written to the WAL and checkpointed (BENCHMARKS.md entry 29).
// The triggers of 0017_event-queue.ts make the same shape in SQL. (key.expiring and quota ids are derived, not made.)
import { randomBytes } from 'node:crypto'

export const newEventId = (atMs: number): string =>
  `evt_${Math.max(0, Math.trunc(atMs)).toString(16).padStart(12, '0')}${randomBytes(10).toString('hex')}`
