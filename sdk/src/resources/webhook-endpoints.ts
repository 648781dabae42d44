import type { ApiPromise } from '../api-promise.js'
import { everyItem, getPage, urlOf, type Page } from '../paging.js'
import type { UnkeyedRequestOptions } from '../options.js'
import { call, type RequestOptions, type TransportSettings } from '../transport.js'
import type {
  ListWebhookAttemptsPageParams,
  ListWebhookAttemptsParams,
  NewWebhookEndpoint,
  RotateWebhookSecretParams,
  WebhookAttempt,
  WebhookEndpoint,
  WebhookEndpointPatch,
  WebhookEndpointWithSecret,
  WebhookEvent,
  WebhookResendResult,
} from '../types.js'

/** The fields of an endpoint a request sets: only these are sent, whatever else the object has. */
const fieldsOf = (endpoint: NewWebhookEndpoint | WebhookEndpointPatch) => ({
  url: endpoint.url,
  eventTypes: endpoint.eventTypes,
  description: endpoint.description,
  enabled: endpoint.enabled,
})

/**
 * `ps.webhooks.endpoints`: the account's webhook endpoints (at most 10), their delivery log, and sending events
 * again. Their POSTs take no Idempotency-Key on the service, so none is sent: `create`, `rotateSecret` and
 * `sendTest` are not retried after an attempt whose outcome is unknown (no answer, a 5xx), which could do them twice.
 */
export class WebhookEndpoints {
  constructor(
    private readonly settings: TransportSettings,
    private readonly baseUrl: string,
  ) {}

  /** `GET /webhook-endpoints`: every endpoint of the account, oldest first (one answer: there are at most 10). */
  list(options?: RequestOptions): ApiPromise<WebhookEndpoint[]> {
    return call(
      this.settings,
      () => ({ method: 'GET', url: `${this.baseUrl}/webhook-endpoints`, options }),
      (answer) => answer.data as WebhookEndpoint[],
    )
  }

  /**
   * `POST /webhook-endpoints`: adds an endpoint. The result holds its signing `secret` (`whsec_…`), shown only now:
   * keep it where your receiver reads it. Retried only after a 429: after a lost answer, `list()` tells whether it
   * was made.
   */
  create(endpoint: NewWebhookEndpoint, options?: UnkeyedRequestOptions): ApiPromise<WebhookEndpointWithSecret> {
    return call(
      this.settings,
      () => ({
        method: 'POST',
        url: `${this.baseUrl}/webhook-endpoints`,
        body: fieldsOf(endpoint),
        options,
        unkeyed: 'once',
      }),
      (answer) => answer.data as WebhookEndpointWithSecret,
    )
  }

  /** `GET /webhook-endpoints/{id}`: one endpoint (NotFoundError `webhook_endpoint_not_found` if none). */
  get(id: string, options?: RequestOptions): ApiPromise<WebhookEndpoint> {
    return call(
      this.settings,
      () => ({ method: 'GET', url: this.#url(id), options }),
      (answer) => answer.data as WebhookEndpoint,
    )
  }

  /** `PATCH /webhook-endpoints/{id}`: changes the fields given; `enabled: true` enables it again. */
  update(id: string, patch: WebhookEndpointPatch, options?: RequestOptions): ApiPromise<WebhookEndpoint> {
    return call(
      this.settings,
      () => ({ method: 'PATCH', url: this.#url(id), body: fieldsOf(patch), options }),
      (answer) => answer.data as WebhookEndpoint,
    )
  }

  /**
   * `DELETE /webhook-endpoints/{id}`: nothing more is sent to it. As `ps.orders.cancel`, a 404 on a retry after an
   * attempt whose outcome is unknown is taken as done.
   */
  delete(id: string, options?: RequestOptions): ApiPromise<void> {
    return call(
      this.settings,
      () => ({ method: 'DELETE', url: this.#url(id), options, goneMeansDone: true }),
      () => undefined,
    )
  }

  /**
   * `POST /webhook-endpoints/{id}/rotate-secret`: a new secret, in the result only. The old one keeps signing too
   * for `graceSeconds` (default a day), so verify with both until your receiver has the new one.
   */
  rotateSecret(
    id: string,
    params: RotateWebhookSecretParams = {},
    options?: UnkeyedRequestOptions,
  ): ApiPromise<WebhookEndpointWithSecret> {
    const body = () => ({ graceSeconds: params.graceSeconds })
    return call(
      this.settings,
      () => ({ method: 'POST', url: this.#url(id, '/rotate-secret'), body: body(), options, unkeyed: 'once' }),
      (answer) => answer.data as WebhookEndpointWithSecret,
    )
  }

  /** `POST /webhook-endpoints/{id}/test`: records a `webhook.test` event for this endpoint only, and returns it. */
  sendTest(id: string, options?: UnkeyedRequestOptions): ApiPromise<WebhookEvent> {
    return call(
      this.settings,
      () => ({ method: 'POST', url: this.#url(id, '/test'), options, unkeyed: 'once' }),
      (answer) => answer.data as WebhookEvent,
    )
  }

  /** Every delivery attempt to the endpoint, newest first, page after page, as it is read. */
  attempts(
    id: string,
    params: ListWebhookAttemptsParams = {},
    options?: RequestOptions,
  ): AsyncGenerator<WebhookAttempt, void, undefined> {
    return everyItem((cursor) => this.attemptsPage(id, { ...params, cursor }, options))
  }

  /** `GET /webhook-endpoints/{id}/attempts`: one page of attempts, newest first, and the next page's cursor. */
  attemptsPage(
    id: string,
    params: ListWebhookAttemptsPageParams = {},
    options?: RequestOptions,
  ): ApiPromise<Page<WebhookAttempt>> {
    const url = urlOf(this.baseUrl, `/webhook-endpoints/${encodeURIComponent(id)}/attempts`, {
      limit: params.limit,
      cursor: params.cursor,
    })
    return getPage<WebhookAttempt>(this.settings, url, options)
  }

  /** `POST /webhook-endpoints/{id}/resend`: sends one event (`evt_…`) to the endpoint again. */
  resend(id: string, eventId: string, options?: UnkeyedRequestOptions): ApiPromise<WebhookResendResult> {
    return call(
      this.settings,
      // Twice is harmless: the same event again, which a receiver skips by its webhook-id.
      () => ({ method: 'POST', url: this.#url(id, '/resend'), body: { eventId }, options, unkeyed: 'repeatable' }),
      (answer) => answer.data as WebhookResendResult,
    )
  }

  /** `POST /webhook-endpoints/{id}/recover`: sends again every event since `since` whose delivery failed. */
  recover(id: string, since: Date | string, options?: UnkeyedRequestOptions): ApiPromise<WebhookResendResult> {
    const body = () => ({ since: since instanceof Date ? since.toISOString() : since })
    return call(
      this.settings,
      () => ({ method: 'POST', url: this.#url(id, '/recover'), body: body(), options, unkeyed: 'repeatable' }),
      (answer) => answer.data as WebhookResendResult,
    )
  }

  #url(id: string, tail = ''): string {
    return `${this.baseUrl}/webhook-endpoints/${encodeURIComponent(id)}${tail}`
  }
}
