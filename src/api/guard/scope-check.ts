// Restricted keys (issue 26): each operation declares, once, in its route's config, the scope a key needs for it
// (`config: { scope: 'pets:read' }`); the request guard checks it after authenticating and counting the request,
// so a refusal counts against the quota and carries the X-RateLimit-* headers like any authenticated answer, and
// the handler (which stores things) never runs. The OpenAPI documents read the same declaration (openapi.ts).
import type { FastifyRequest } from 'fastify'
import type { Scope } from '../../modules/accounts/key-scopes.js'
import { ApiError } from '../contract/errors.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope an API key needs for this operation (checked by the request guard, documented in OpenAPI). */
    scope?: Scope
  }
}

/** The 403 of RFC 6750 §3.1: the key is good, it may not do this; the challenge names the scope that would do. */
function insufficientScope(scope: Scope): ApiError {
  return new ApiError(
    'insufficient_scope',
    `This API key does not have the ${scope} scope, which this operation needs. Create a key with it (a key's scopes ` +
      `cannot be widened).`,
    {
      'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"`,
    },
  )
}

/** Throws the 403 when the route names a scope the request's key lacks. */
export function checkScope(request: FastifyRequest, scopes: readonly Scope[]): void {
  const needed = request.routeOptions.config.scope
  if (needed !== undefined && !scopes.includes(needed)) throw insufficientScope(needed)
}
