// One log line per request, written when the response is done (Fastify writes two by default).
// Only the method, path (no query string), the client's address (request.ip: behind trusted proxies, the one they
// forwarded) and outcome are logged: never headers, so never a key, and never the token of an emailed link.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'

/** The portal's emailed links carry their token in the path (/portal/verify/TOKEN): the log shows `…`. */
const withoutLinkToken = (path: string): string => path.replace(/^(\/portal\/(?:verify|reset|account\/email)\/)[^/]+/, '$1…')

export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    const line = { method: request.method, path: withoutLinkToken(request.url.split('?')[0]!), client: request.ip, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }
    if (error) reply.log.error({ ...line, err: error }, 'request failed')
    else reply.log.info(line, 'request')
  }
}
