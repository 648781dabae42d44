// Where limiting sits in the request pipeline. Pet store operations: authenticate, then count the request
// against the account (a key that is refused, a 401, is counted against the client address instead; a failure
// on our side, such as an unreachable database during the key look-up, is never counted against anyone). Other
// API responses (unknown paths, wrong methods, the OpenAPI document) count against the address.
// Either way the headers are set before anything can fail, so every response carries them.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Clock } from '../clock.js'
import type { Usage } from '../usage/usage.service.js'
import { ApiError } from '../http/errors.js'
import type { RateLimiter } from './rate-limiter.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `address`: limit this route per client address (routes outside the authenticated scope). */
    rateLimit?: 'address'
  }
}

interface GuardOptions {
  authenticate: (request: FastifyRequest) => Promise<void>
  limiter: RateLimiter
  /** Told of every request with a valid key, admitted or refused (in memory, no await). */
  usage: Pick<Usage, 'record'>
  clock: Clock
}

export function createRequestGuard({ authenticate, limiter, usage, clock }: GuardOptions) {
  return async function guard(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    try {
      await authenticate(request)
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) {
        // Not the client's fault: its response still describes the address's quota, which it leaves as it was.
        reply.headers(await limiter.addressHeaders(request.ip))
        throw error
      }
      const outcome = await limiter.forAddress(request.ip)
      reply.headers(outcome.headers)
      throw outcome.error ?? error
    }
    const auth = request.auth!
    const outcome = await limiter.forAccount({ accountId: auth.accountId, keyId: auth.keyId, quota: auth.quota })
    reply.headers(outcome.headers)
    usage.record({ accountId: auth.accountId, keyId: auth.keyId, admitted: outcome.error === undefined, at: clock.now() })
    if (outcome.error) throw outcome.error
  }
}

/** Root hook: unknown paths, routes marked `config.rateLimit: 'address'`, and (`always`) requests refused before routing. */
export function createAddressLimitHook(limiter: RateLimiter) {
  return async function limitByAddress(request: FastifyRequest, reply: FastifyReply, always = false): Promise<void> {
    if (!always && !request.is404 && request.routeOptions.config.rateLimit !== 'address') return
    const outcome = await limiter.forAddress(request.ip)
    reply.headers(outcome.headers)
    if (outcome.error) throw outcome.error
  }
}
