// Standard Webhooks signing (https://www.standardwebhooks.com): each attempt carries the event id, the Unix time of
// the attempt and one `v1,<base64 HMAC-SHA256 of id.timestamp.body>` per valid secret, space-separated, so a
// receiver still holding the secret before a rotation verifies as well as one holding the new one.
import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'

const SECRET_PREFIX = 'whsec_'

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes. */
export const newEndpointSecret = (): string => SECRET_PREFIX + randomBytes(32).toString('base64')

interface SignedHeaders {
  'webhook-id': string
  'webhook-timestamp': string
  'webhook-signature': string
}

/** The three signature headers of one attempt, signed with every secret given (the current one first). */
export function signDelivery(input: {
  eventId: string
  body: string
  secrets: readonly string[]
  at: Date
}): SignedHeaders {
  const signatures = input.secrets.map((secret) => new Webhook(secret).sign(input.eventId, input.at, input.body))
  return {
    'webhook-id': input.eventId,
    'webhook-timestamp': String(Math.floor(input.at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  }
}
