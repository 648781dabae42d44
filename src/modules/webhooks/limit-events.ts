// The rate limiter's events for webhooks (issue 36): a key's temporary ban, and the day's usage crossing 80 % and
// 100 % of the quota. They describe no row change, so they are recorded on their own, after the decision, off the
// request's path; a quota threshold has an id made from the account, the day and the threshold, so it is recorded
// once a day however many instances see the crossing.
import { hash } from 'node:crypto'
import type { Clock } from '../../kernel/clock.js'
import type { Engine } from '../../db/engine.js'
import { recordEvent } from './record-event.js'
import type { EventType } from './event-types.js'

export function createLimitEvents({
  engine,
  clock,
  log,
}: {
  engine: Engine
  clock: Clock
  log?: { warn: (obj: object, msg: string) => void }
}) {
  const record = (accountId: string, type: EventType, data: unknown, id?: string) => {
    engine
      .write((executor) => recordEvent(executor, { accountId, type, data, at: clock.now(), ...(id ? { id } : {}) }))
      .catch((err: unknown) => log?.warn({ err, accountId, type }, 'webhook event not recorded'))
  }
  return {
    banned: (ban: { accountId: string; keyId: string; until: number }) =>
      record(ban.accountId, 'key.banned', { keyId: ban.keyId, bannedUntil: new Date(ban.until).toISOString() }),
    quotaCrossed: (c: { accountId: string; threshold: number; used: number; limit: number; day: string }) =>
      record(
        c.accountId,
        'quota.threshold',
        { threshold: c.threshold, day: c.day, used: c.used, limit: c.limit },
        `evt_${hash('sha256', `quota\n${c.accountId}\n${c.day}\n${c.threshold}`, 'hex').slice(0, 32)}`,
      ),
  }
}
