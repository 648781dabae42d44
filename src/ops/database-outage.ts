// A request refused because the database is down, as the API's error handler and the sites' both report it.
import type { FastifyRequest } from 'fastify'
import { reasonOf } from '../kernel/reason.js'
import type { OutageLog } from './outage-log.js'

/**
 * A request refused because the database is down: counted in the process's database outage (one warning when it
 * starts, a count every 30 s), not a warning and a stack trace per request.
 */
export function reportDatabaseUnavailable(
  outage: OutageLog | undefined,
  request: FastifyRequest,
  error: unknown,
): void {
  if (outage) outage.failed(error)
  else request.log.warn({ reason: reasonOf(error) }, 'database unavailable')
}
