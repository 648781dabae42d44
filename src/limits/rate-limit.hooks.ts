// Where limiting sits in the request pipeline. Pet store operations: authenticate, then count the request
// against the account (a failed authentication is counted against the client address instead). Other
// API responses (unknown paths, wrong methods, the OpenAPI document) count against the address.
// Either way the headers are set before anything can fail, so every response carries them.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { RateLimiter } from './rate-limiter.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `address`: limit this route per client address (routes outside the authenticated scope). */
    rateLimit?: 'address'
  }
}

export function createRequestGuard({ authenticate, limiter }: { authenticate: (request: FastifyRequest) => Promise<void>; limiter: RateLimiter }) {
  return async function guard(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    try {
      await authenticate(request)
    } catch (error) {
      const outcome = await limiter.forAddress(request.ip)
      reply.headers(outcome.headers)
      throw outcome.error ?? error
    }
    const auth = request.auth!
    const outcome = await limiter.forAccount({ accountId: auth.accountId, keyId: auth.keyId, quota: auth.quota })
    reply.headers(outcome.headers)
    if (outcome.error) throw outcome.error
  }
}

/** Root hook: unknown paths and routes marked `config.rateLimit: 'address'`. */
export function createAddressLimitHook(limiter: RateLimiter) {
  return async function limitByAddress(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!request.is404 && request.routeOptions.config.rateLimit !== 'address') return
    const outcome = await limiter.forAddress(request.ip)
    reply.headers(outcome.headers)
    if (outcome.error) throw outcome.error
  }
}
