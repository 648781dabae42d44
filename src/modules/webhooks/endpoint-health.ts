// How each endpoint of an account is doing, for the operator console's account page, in one query: its last
// attempt (when, and the status code or class of error), since when every attempt has failed (the endpoint's
// failing_since, which the worker clears on a success), how many deliveries are pending, and how many attempts were
// made and failed in the last 24 hours. A failed attempt is any without a 2xx answer.
import type { Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import type { Database } from '../../db/schema.js'
import { streamBacklog } from './event-streams.repository.js'

const DAY_MS = 86_400_000

export interface EndpointHealth {
  /** The newest attempt, if any was made (or is still kept). */
  lastAttempt?: { at: string; statusCode?: number; errorClass?: string }
  /** The first failed attempt since the last success (ISO); absent when the last attempt succeeded. */
  failingSince?: string
  /** Events waiting for their first attempt (the endpoint's stream), and deliveries waiting for their next one. */
  pending: number
  /** Attempts made in the last 24 hours, and how many of them failed. */
  attempts24h: number
  failures24h: number
}

/** endpoint id -> its health, for every endpoint of the account. */
export async function endpointHealth(
  { db, clock }: { db: Kysely<Database>; clock: Clock },
  accountId: string,
): Promise<Map<string, EndpointHealth>> {
  const since = new Date(clock.now() - DAY_MS).toISOString()
  const rows = await db
    .selectFrom('webhook_endpoints as ep')
    .leftJoin('webhook_attempts as last', (join) =>
      join.on((eb) =>
        eb(
          'last.seq',
          '=',
          eb
            .selectFrom('webhook_attempts as a')
            .select((s) => s.fn.max('a.seq').as('seq'))
            .whereRef('a.endpoint_id', '=', 'ep.id'),
        ),
      ),
    )
    .select((eb) => [
      'ep.id',
      'ep.failing_since',
      'last.attempted_at',
      'last.status_code',
      'last.error_class',
      eb
        .selectFrom('webhook_deliveries as d')
        .select((s) => s.fn.countAll<string | number | bigint>().as('n'))
        .whereRef('d.endpoint_id', '=', 'ep.id')
        .where('d.status', '=', 'pending')
        .as('pending'),
      eb
        .selectFrom('webhook_attempts as r')
        .select((s) => s.fn.countAll<string | number | bigint>().as('n'))
        .whereRef('r.endpoint_id', '=', 'ep.id')
        .where('r.attempted_at', '>=', since)
        .as('attempts'),
      eb
        .selectFrom('webhook_attempts as f')
        .select((s) => s.fn.countAll<string | number | bigint>().as('n'))
        .whereRef('f.endpoint_id', '=', 'ep.id')
        .where('f.attempted_at', '>=', since)
        .where((w) =>
          w.or([w('f.status_code', 'is', null), w('f.status_code', '<', 200), w('f.status_code', '>=', 300)]),
        )
        .as('failures'),
    ])
    .where('ep.account_id', '=', accountId)
    .execute()
  const streams = new Map((await streamBacklog(db, accountId)).map((s) => [s.endpointId, s.waiting]))
  return new Map(
    rows.map((r) => [
      r.id,
      {
        ...(r.attempted_at === null
          ? {}
          : {
              lastAttempt: {
                at: r.attempted_at,
                ...(r.status_code === null ? {} : { statusCode: Number(r.status_code) }),
                ...(r.error_class === null ? {} : { errorClass: r.error_class }),
              },
            }),
        ...(r.failing_since === null ? {} : { failingSince: new Date(Number(r.failing_since)).toISOString() }),
        pending: Number(r.pending ?? 0) + (streams.get(r.id) ?? 0),
        attempts24h: Number(r.attempts ?? 0),
        failures24h: Number(r.failures ?? 0),
      },
    ]),
  )
}
