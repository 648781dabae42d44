import type { TransportSettings } from '../transport.js'
import type { WebhookEvent } from '../types.js'
import { verifyWebhook, type WebhookHeaders, type WebhookVerifyOptions } from '../webhook-verify.js'
import { WebhookEndpoints } from './webhook-endpoints.js'

/** `ps.webhooks`: managing the endpoints events are sent to, and checking a delivery your receiver got. */
export class Webhooks {
  readonly endpoints: WebhookEndpoints

  constructor(settings: TransportSettings, baseUrl: string) {
    this.endpoints = new WebhookEndpoints(settings, baseUrl)
  }

  /**
   * The event of a delivery, once its signature and timestamp are checked against the endpoint's secret (or any of
   * several, while you rotate it); a WebhookVerificationError otherwise. `rawBody` is the body exactly as received.
   * The same as the exported `verifyWebhook`, which needs no client (nor API key).
   */
  verify(
    rawBody: string | Uint8Array,
    headers: WebhookHeaders,
    secret: string | readonly string[],
    options?: WebhookVerifyOptions,
  ): Promise<WebhookEvent> {
    return verifyWebhook(rawBody, headers, secret, options)
  }
}
