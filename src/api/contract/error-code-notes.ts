// The error code of each answer that had one, noted as the Error body is sent (error-handler.ts), for the request's
// log line (platform/request-log.ts) to name it without parsing the body.
import type { FastifyReply } from 'fastify'

const errorCodes = new WeakMap<FastifyReply, string>()

export function noteErrorCode(reply: FastifyReply, code: string): void {
  errorCodes.set(reply, code)
}

export function errorCodeOf(reply: FastifyReply): string | undefined {
  return errorCodes.get(reply)
}
