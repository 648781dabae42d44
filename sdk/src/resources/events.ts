import type { ApiPromise } from '../api-promise.js'
import { everyItem, getPage, urlOf, type Page } from '../paging.js'
import { call, type RequestOptions, type TransportSettings } from '../transport.js'
import type {
  ListEventsPageParams,
  ListEventsParams,
  WebhookEvent,
  WebhookEventOf,
  WebhookEventType,
} from '../types.js'

/**
 * `ps.events`: the events recorded for the account (what its webhook endpoints are sent), kept for the service's
 * `WEBHOOK_RETENTION_DAYS`. An event is recorded only while an enabled endpoint is subscribed to its type.
 */
export class Events {
  constructor(
    private readonly settings: TransportSettings,
    private readonly baseUrl: string,
  ) {}

  /** Every event matching `params`, newest first, page after page, as it is read; of `type` only, typed so. */
  list<T extends WebhookEventType = WebhookEventType>(
    params: ListEventsParams & { type?: T | undefined } = {},
    options?: RequestOptions,
  ): AsyncGenerator<WebhookEventOf<T>, void, undefined> {
    return everyItem((cursor) => this.listPage<T>({ ...params, cursor }, options))
  }

  /** `GET /events`: one page of events, newest first, and the cursor of the next page (if any). */
  listPage<T extends WebhookEventType = WebhookEventType>(
    params: ListEventsPageParams & { type?: T | undefined } = {},
    options?: RequestOptions,
  ): ApiPromise<Page<WebhookEventOf<T>>> {
    const url = urlOf(this.baseUrl, '/events', { limit: params.limit, type: params.type, cursor: params.cursor })
    return getPage<WebhookEventOf<T>>(this.settings, url, options)
  }

  /** `GET /events/{eventId}`: one event (`evt_…`), as its deliveries carry it. */
  get(eventId: string, options?: RequestOptions): ApiPromise<WebhookEvent> {
    return call(
      this.settings,
      () => ({ method: 'GET', url: `${this.baseUrl}/events/${encodeURIComponent(eventId)}`, options }),
      (answer) => answer.data as WebhookEvent,
    )
  }
}
