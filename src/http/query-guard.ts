import type { FastifyRequest } from 'fastify'
import { ApiError } from './errors.js'

/** A parameter given twice is ambiguous (which one wins differs between stacks), so it is refused. */
export async function refuseRepeatedQueryParameters(request: FastifyRequest): Promise<void> {
  const query = request.query as Record<string, unknown> | undefined
  if (!query) return
  for (const [name, value] of Object.entries(query)) {
    if (Array.isArray(value)) throw new ApiError('invalid_parameter', `Query parameter '${name}' is repeated; send it once.`)
  }
}
