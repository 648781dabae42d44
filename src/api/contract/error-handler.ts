// One error handler for the whole service: every failure leaves as `{code, message, status}`.
// Only ApiErrors and recognised client errors show their message; anything else is a bare 500.
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify'
import { apiErrorOf } from './domain-errors.js'
import { ApiError } from './errors.js'
import { isDatabaseUnavailable } from '../../db/unavailable.js'
import { reportDatabaseUnavailable } from '../../ops/database-outage.js'
import type { OutageLog } from '../../ops/outage-log.js'
import { addLogFields } from '../../ops/log-fields.js'
import { validationError } from './validation-errors.js'

/** What a 503 tells clients to wait: about the time the pool takes to give up on one connection attempt. */
const DATABASE_RETRY_AFTER_SECONDS = 2

/** Maps Fastify's own errors (parsing, limits, validation) onto our codes; unknown errors become undefined. */
export function clientError(error: FastifyError, bodyLimit: number): ApiError | undefined {
  if (error instanceof ApiError) return error
  const refused = apiErrorOf(error)
  if (refused) return refused
  if (error.validation) return validationError(error.validationContext ?? 'body', error.validation)
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', `The request body is larger than ${bodyLimit / 1024} KiB.`)
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(
        'invalid_content_type',
        'Send the body as JSON with the header `Content-Type: application/json`.',
      )
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_json', 'The request body is empty; send a JSON object.')
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('bad_request', 'The Content-Length header does not match the body.')
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError('bad_request', 'The request could not be read.')
  }
  return undefined
}

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  addLogFields(reply.request, { errorCode: error.code })
  return reply.code(error.status).headers(error.headers).send(error.toBody())
}

/** `databaseOutage`: the process's (ops/outage-log.ts); a request refused by an outage is counted there. */
export function installErrorHandling(app: FastifyInstance, databaseOutage?: OutageLog): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const known = clientError(error, request.routeOptions.bodyLimit)
    if (known) return sendError(reply, known)
    if (isDatabaseUnavailable(error)) {
      reportDatabaseUnavailable(databaseOutage, request, error)
      return sendError(
        reply,
        new ApiError(
          'service_unavailable',
          'The service cannot reach its database right now. Retry shortly; ' +
            'a POST sent with an Idempotency-Key is safe to retry.',
          { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
        ),
      )
    }
    request.log.error({ err: error }, 'unhandled error')
    return sendError(
      reply,
      new ApiError(
        'internal_error',
        'Something went wrong on our side. Retry later; quote the X-Request-Id if it persists.',
      ),
    )
  })

  app.setNotFoundHandler((request, reply) => {
    sendError(reply, new ApiError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}.`))
  })
}
