// One id per request: a well-formed incoming X-Request-Id is kept (so a caller can trace its own id
// through our logs), anything else is replaced by a fresh UUID. Every response echoes it.
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

const WELL_FORMED = /^[A-Za-z0-9._:@+=-]{1,128}$/

export function requestIdFrom(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id']
  return typeof incoming === 'string' && WELL_FORMED.test(incoming) ? incoming : randomUUID()
}
