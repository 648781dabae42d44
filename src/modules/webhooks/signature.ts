// Standard Webhooks signing (https://www.standardwebhooks.com): each attempt carries the event id, the Unix time of
// the attempt and one `v1,<base64 HMAC-SHA256 of id.timestamp.body>` per valid secret, space-separated, so a
// receiver still holding the secret before a rotation verifies as well as one holding the new one.
import { createHmac, randomBytes } from 'node:crypto'

const SECRET_PREFIX = 'whsec_'

/** The key a secret stands for: the base64 after `whsec_`. */
const keyOf = (secret: string): Buffer =>
  Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64')

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
  const timestamp = String(Math.floor(input.at.getTime() / 1000))
  const signed = `${input.eventId}.${timestamp}.${input.body}`
  // OpenSSL's HMAC, as the specification defines it (test/modules/webhooks/signature.test.ts holds it to the
  // `standardwebhooks` package's): the package's own is JavaScript, several times the CPU of each attempt's.
  const signatures = input.secrets.map(
    (secret) => `v1,${createHmac('sha256', keyOf(secret)).update(signed).digest('base64')}`,
  )
  return { 'webhook-id': input.eventId, 'webhook-timestamp': timestamp, 'webhook-signature': signatures.join(' ') }
}
