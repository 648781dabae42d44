// The one place where the modules' own outcomes become the API's error codes (errors.ts): a module refuses in its
// own words (a class of error, a refusal in its result) and never knows about HTTP.
import { IdempotencyConflict } from '../../modules/idempotency/idempotency.errors.js'
import type { LimitRefusal } from '../../modules/limits/rate-limiter.js'
import { OrderRefused } from '../../modules/orders/orders.errors.js'
import {
  EndpointDisabled,
  EndpointLimitReached,
  EndpointRefused,
  WebhookNotFound,
} from '../../modules/webhooks/webhooks.errors.js'
import { ApiError } from './errors.js'

/** The API's error for a module's refusal, or undefined when `error` is none of theirs. */
export function apiErrorOf(error: unknown): ApiError | undefined {
  if (error instanceof IdempotencyConflict) {
    return error.reason === 'in_progress'
      ? new ApiError(
          'idempotency_key_in_progress',
          'A request with this Idempotency-Key is still in progress; retry after it has finished.',
        )
      : new ApiError(
          'idempotency_key_reused',
          'This Idempotency-Key was already used with a different request body; use a new key for a new request.',
        )
  }
  if (error instanceof OrderRefused) {
    return error.field === 'shipDate'
      ? new ApiError(
          'invalid_body',
          "Body field 'shipDate' must be a date-time between the years 0000 and 9999 in UTC, without a leap second.",
        )
      : new ApiError('invalid_body', `Body field 'petId' must name a pet of your account; ${error.value} does not.`)
  }
  if (error instanceof EndpointRefused)
    return new ApiError('invalid_body', `Body field '${error.field}': ${error.message}.`)
  if (error instanceof EndpointLimitReached)
    return new ApiError('webhook_endpoint_limit_reached', `An account may have up to ${error.limit} webhook endpoints.`)
  if (error instanceof EndpointDisabled)
    return new ApiError('webhook_endpoint_disabled', `Webhook endpoint ${error.id} is disabled; enable it first.`)
  if (error instanceof WebhookNotFound) {
    return error.kind === 'endpoint'
      ? new ApiError('webhook_endpoint_not_found', `No webhook endpoint with id ${error.id} exists in your account.`)
      : new ApiError('event_not_found', `No event with id ${error.id} exists in your account.`)
  }
  return undefined
}

/** The 429 of a limiter's refusal, with its Retry-After. */
export const refusalError = (refusal: LimitRefusal): ApiError =>
  new ApiError(refusal.reason, refusal.message, { 'retry-after': String(refusal.retryAfterSeconds) })
