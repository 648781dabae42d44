import type { FastifyRequest } from 'fastify'

/** The scheme://host[:port] clients use to reach us: configured (behind a proxy), else from the request. */
export function publicOrigin(request: FastifyRequest, configured: string | undefined): string {
  return configured ?? `${request.protocol}://${request.host}`
}
