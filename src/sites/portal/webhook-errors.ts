// What the webhooks service refuses (webhooks.errors.ts), as the portal's pages say it: an endpoint or event not
// in the account (another account's reads as a missing one) is the 404 page, a disabled endpoint asked to send 409.
import { EndpointDisabled, WebhookNotFound } from '../../modules/webhooks/webhooks.errors.js'
import { PageError } from '../kit/reply.js'
import type { PortalWebhooks } from './portal.context.js'

/** The service's "not in your account" and "disabled" as the portal's pages; anything else as it is. */
export async function asPage<T>(work: Promise<T>): Promise<T> {
  try {
    return await work
  } catch (error) {
    if (error instanceof WebhookNotFound)
      throw error.kind === 'endpoint'
        ? new PageError(404, 'No such endpoint', 'This webhook endpoint does not exist in your account.')
        : new PageError(404, 'No such event', 'This event does not exist in your account (or is no longer kept).')
    if (error instanceof EndpointDisabled)
      throw new PageError(
        409,
        'The endpoint is disabled',
        'A disabled endpoint is sent nothing. Enable it on its page first, then try again.',
      )
    throw error
  }
}

/** The signed-in account's endpoint, or the 404 page (another account's endpoint reads as a missing one). */
export const ownEndpoint = (webhooks: PortalWebhooks, accountId: string, id: string) =>
  asPage(webhooks.endpoints.get(accountId, id))
