import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { ApiError } from '../contract/errors.js'

/**
 * A parameter given twice is ambiguous (which one wins differs between stacks), so it is refused.
 * A callback hook, not an async one: it runs on every request and has nothing to wait for.
 */
export function refuseRepeatedQueryParameters(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  const query = request.query as Record<string, unknown> | undefined
  for (const name in query) {
    if (Array.isArray(query[name]))
      return done(new ApiError('invalid_parameter', `Query parameter '${name}' is repeated; send it once.`))
  }
  done()
}
