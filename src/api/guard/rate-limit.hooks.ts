// Where limiting sits in the request pipeline. Pet store operations: authenticate, then count the request
// against the account, then check the key's scope for the operation, so a 403 insufficient_scope is counted too.
// A key that is refused, a 401, is counted against the client address instead; a failure on our side, such as an
// unreachable database during the key look-up, is never counted against anyone. Other API responses (unknown
// paths, wrong methods, the OpenAPI document) count against the address.
// Either way the headers are set before anything can fail, so every response carries them. Usage is counted when
// the answer is sent (createUsageRecorder), since its outcome (success, 4xx, 429, 5xx) is known only then.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Clock } from '../../kernel/clock.js'
import type { Usage } from '../../modules/usage/usage.service.js'
import { refusalError } from '../contract/domain-errors.js'
import { ApiError } from '../contract/errors.js'
import { checkScope } from './scope-check.js'
import type { RateLimiter } from '../../modules/limits/rate-limiter.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `address`: limit this route per client address (routes outside the authenticated scope). */
    rateLimit?: 'address'
  }
}

interface GuardOptions {
  authenticate: (request: FastifyRequest) => Promise<void>
  limiter: RateLimiter
}

export function createRequestGuard({ authenticate, limiter }: GuardOptions) {
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
      throw outcome.refusal ? refusalError(outcome.refusal) : error
    }
    const auth = request.auth!
    const outcome = await limiter.forAccount({
      accountId: auth.accountId,
      keyId: auth.keyId,
      quota: auth.quota,
      plan: auth.plan,
    })
    reply.headers(outcome.headers)
    if (outcome.refusal) throw refusalError(outcome.refusal)
    checkScope(request, auth.scopes)
  }
}

/**
 * onResponse hook beside the guard: every answered request whose key was accepted is counted by its status (the
 * limiter's 429 as refused). One map increment in memory; a callback hook, so no promise per request. A request
 * whose client went away before its answer was written has no outcome and is not counted (nor logged).
 */
export function createUsageRecorder({ usage, clock }: { usage: Pick<Usage, 'record'>; clock: Clock }) {
  return function recordUsage(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
    const auth = request.auth
    if (auth !== null)
      usage.record({ accountId: auth.accountId, keyId: auth.keyId, status: reply.statusCode, at: clock.now() })
    done()
  }
}

/**
 * Root hook: unknown paths, routes marked `config.rateLimit: 'address'`, and (`always`) requests refused before
 * routing.
 */
export function createAddressLimitHook(limiter: RateLimiter) {
  return async function limitByAddress(request: FastifyRequest, reply: FastifyReply, always = false): Promise<void> {
    if (!always && !request.is404 && request.routeOptions.config.rateLimit !== 'address') return
    const outcome = await limiter.forAddress(request.ip)
    reply.headers(outcome.headers)
    if (outcome.refusal) throw refusalError(outcome.refusal)
  }
}
