// @petstore/sdk: the typed client of the Petstore API. See README.md.
export { ApiPromise, type WithResponse } from './api-promise.js'
export { DEFAULT_BASE_URL, DEFAULT_MESSAGES_URL, Petstore, type PetstoreOptions } from './client.js'
export {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  InsufficientScopeError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  PetstoreError,
  RateLimitError,
  TimeoutError,
  UnprocessableEntityError,
} from './errors.js'
export { toJSON } from './json.js'
export type { Logger, LogLevel } from './logger.js'
export type { Page } from './paging.js'
export type { Messages } from './resources/messages.js'
export type { Orders } from './resources/orders.js'
export type { Pets } from './resources/pets.js'
export type { Events } from './resources/events.js'
export type { WebhookEndpoints } from './resources/webhook-endpoints.js'
export type { Webhooks } from './resources/webhooks.js'
export type { UnkeyedRequestOptions } from './options.js'
export type { RateLimit, RequestOptions, ResponseInfo } from './transport.js'
export type * from './types.js'
export { SDK_VERSION } from './version.js'
export {
  verifyWebhook,
  type WebhookHeaders,
  WebhookVerificationError,
  type WebhookVerificationReason,
  type WebhookVerifyOptions,
} from './webhook-verify.js'
