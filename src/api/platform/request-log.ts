// One log line per request, written when the response is done (Fastify writes two by default): what an operator
// searches by. The method, the path (no query string), the client's address (request.ip: behind trusted proxies,
// the one they forwarded), the status and time; the account and key id when a key was accepted (the id, never the
// key); the error code of an error answer; the User-Agent; and what the rate limiter decided (allowed with the
// requests remaining, limited, banned), read from the answer's own headers. Never another header (so never a key,
// a cookie, a password), never a body, and never the token of an emailed link.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'
import type { OutageLog } from '../../ops/outage-log.js'
import { logFieldsOf } from '../../ops/log-fields.js'

/**
 * The portal's emailed links carry their token in the path (/portal/verify/TOKEN, /portal/invitations/TOKEN), and
 * so does an operator's setup link (/console/setup/TOKEN, usable for 24 hours by whoever reads it): the log shows
 * `…`.
 */
const withoutLinkToken = (path: string): string =>
  path.replace(/^(\/(?:portal\/(?:verify|reset|account\/email|invitations)|console\/setup)\/)[^/]+/, '$1…')

/** Longest User-Agent written: it is the client's free text. */
const USER_AGENT_MAX = 200

function rateLimitOf(
  reply: FastifyReply,
  errorCode: string | undefined,
): { rateLimit?: string; rateLimitRemaining?: number } {
  if (errorCode === 'temporarily_banned') return { rateLimit: 'banned' }
  if (errorCode === 'rate_limit_exceeded') return { rateLimit: 'limited', rateLimitRemaining: 0 }
  const remaining = reply.getHeader('x-ratelimit-remaining')
  return remaining === undefined ? {} : { rateLimit: 'allowed', rateLimitRemaining: Number(remaining) }
}

export class RequestLogController extends LogController {
  /** `databaseOutage`: the process's; an answered request with an accepted key ends it. */
  constructor(private readonly databaseOutage?: OutageLog) {
    super()
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    const auth = request.auth ?? undefined
    // The error code of an Error answer (the error handler's), a site visitor's id (the site kit's).
    const fields = logFieldsOf(request)
    const errorCode = fields.errorCode
    const userAgent = request.headers['user-agent']
    const line = {
      method: request.method,
      path: withoutLinkToken(request.url.split('?')[0]!),
      client: request.ip,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime),
      ...(auth ? { accountId: auth.accountId, keyId: auth.keyId } : {}),
      ...fields,
      ...(userAgent ? { userAgent: userAgent.slice(0, USER_AGENT_MAX) } : {}),
      ...rateLimitOf(reply, errorCode),
    }
    // A key was accepted and the answer is not a failure of ours: the database answered (its outage, if any, ended).
    if (auth && reply.statusCode < 500) this.databaseOutage?.ok()
    if (error) reply.log.error({ ...line, err: error }, 'request failed')
    else reply.log.info(line, 'request')
  }
}
