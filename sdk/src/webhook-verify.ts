// Checking a webhook delivery as Standard Webhooks signs it (https://www.standardwebhooks.com; the service's
// docs/integrators/webhooks.md): `webhook-signature` holds one `v1,<base64 HMAC-SHA256>` per secret the service signs
// with (two during a rotation), each of `{webhook-id}.{webhook-timestamp}.{raw body}` keyed with the base64 after
// `whsec_`. WebCrypto's HMAC (crypto.subtle: Node.js 20+, Deno, Bun, workers, browsers in a secure context), no
// Node.js module; the MACs are compared in constant time. The body is parsed only once it is known to be ours, with
// the client's lossless JSON, so int64 fields of `data` are exact bigints.
import { parseJson } from './json.js'
import type { WebhookEvent } from './types.js'

/** `malformed`: a header missing or malformed, a secret that is not `whsec_` + base64, a body that is no event. */
export type WebhookVerificationReason = 'bad_signature' | 'timestamp' | 'malformed'

/**
 * A delivery that is not to be trusted: answer it with a 4xx and do nothing it says. Not a PetstoreError: that is an
 * answer of the API (status, code, request id), and this is about a request your receiver got.
 */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError'

  constructor(
    /** `bad_signature`: no signature matches any secret; `timestamp`: signed, but too far from now (a replay?). */
    readonly reason: WebhookVerificationReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
  }
}

/** A Fetch `Headers`, Node.js's `request.headers` (lower-case names) or a plain object with names in any case. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>

export interface WebhookVerifyOptions {
  /** How far `webhook-timestamp` may be from `now`, either way. Default 300 (5 minutes). */
  toleranceSeconds?: number | undefined
  /** Default: the current time. */
  now?: Date | undefined
}

const HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const
const SECRET_PREFIX = 'whsec_'
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const malformed = (message: string, cause?: unknown) =>
  new WebhookVerificationError('malformed', message, cause === undefined ? undefined : { cause })

/**
 * The event of a webhook delivery, once its signature (by `secret`, or any of `secrets` while you rotate) and its
 * timestamp are checked. `rawBody` must be the body exactly as received, before any JSON parsing. Rejects with a
 * WebhookVerificationError otherwise.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: WebhookVerifyOptions = {},
): Promise<WebhookEvent> {
  const tolerance = options.toleranceSeconds ?? 300
  if (typeof tolerance !== 'number' || !(tolerance >= 0) || !Number.isFinite(tolerance))
    throw new RangeError(`toleranceSeconds must be a number of at least 0; got ${String(tolerance)}`)
  const now = options.now ?? new Date()
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw new RangeError('now must be a valid Date')
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array))
    throw new TypeError('rawBody must be the raw body as a string or a Uint8Array, before any JSON parsing')
  const secrets = typeof secret === 'string' ? [secret] : [...secret]
  if (secrets.length === 0) throw malformed('no secret given')
  const keys = secrets.map((s, i) => {
    const base64 = typeof s === 'string' && s.startsWith(SECRET_PREFIX) ? s.slice(SECRET_PREFIX.length) : ''
    // The secret itself is never in the message (messages end up in logs).
    if (base64 === '' || !BASE64.test(base64))
      throw malformed(`secret ${i + 1} of ${secrets.length} is not \`${SECRET_PREFIX}\` followed by base64`)
    return bytesOf(base64)
  })

  const found = HEADERS.map((name) => headerOf(headers, name))
  const [id, timestamp, signatures] = found
  if (id === undefined || timestamp === undefined || signatures === undefined)
    throw malformed(`missing header: ${HEADERS.filter((_, i) => found[i] === undefined).join(', ')}`)
  if (!/^\d{1,15}$/.test(timestamp)) throw malformed('webhook-timestamp is not Unix seconds')

  const encoder = new TextEncoder()
  const prefix = encoder.encode(`${id}.${timestamp}.`)
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody
  const content = new Uint8Array(prefix.length + body.length)
  content.set(prefix)
  content.set(body, prefix.length)
  const given = candidates(signatures)
  const macs = await Promise.all(keys.map((key) => hmacSha256(key, content)))
  if (!macs.some((mac) => given.some((candidate) => equalInConstantTime(candidate, mac))))
    throw new WebhookVerificationError('bad_signature', 'no signature of the delivery matches the secret')

  const off = Math.floor(now.getTime() / 1000) - Number(timestamp)
  if (Math.abs(off) > tolerance)
    throw new WebhookVerificationError(
      'timestamp',
      `the delivery was signed ${Math.abs(off)} s ${off > 0 ? 'ago' : 'ahead of now'} (more than ${tolerance} s)`,
    )
  return eventOf(rawBody, id)
}

/** A header by name in any case; several values (a repeated header) are joined as Fetch's Headers joins them. */
function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) throw new TypeError('headers must be a Headers or an object')
  // Any Fetch Headers (another realm's, a polyfill's): its get() is case-insensitive already.
  if (typeof (headers as { get?: unknown }).get === 'function')
    return (headers as Headers).get(name)?.trim() || undefined
  const values: string[] = []
  for (const [key, value] of Object.entries(headers))
    if (key.toLowerCase() === name && value !== undefined) values.push(...(Array.isArray(value) ? value : [value]))
  return values.join(', ').trim() || undefined
}

/** The MACs of the `v1,<base64>` entries (space-separated; a repeated header's `, ` tolerated), others skipped. */
function candidates(header: string): Uint8Array[] {
  return header.split(/\s+/).flatMap((entry) => {
    const [version, signature] = entry.replace(/,$/, '').split(',')
    return version === 'v1' && signature !== undefined && signature !== '' && BASE64.test(signature)
      ? [bytesOf(signature)]
      : []
  })
}

const bytesOf = (base64: string) => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))

async function hmacSha256(key: Uint8Array<ArrayBuffer>, content: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const subtle = globalThis.crypto?.subtle
  if (subtle === undefined)
    throw new Error(
      'verifyWebhook needs WebCrypto (crypto.subtle): Node.js 20+, Deno, Bun, or a browser page in a secure context',
    )
  const hmac = await subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
  return new Uint8Array(await subtle.sign('HMAC', hmac, content))
}

/** Compares every byte whatever the first difference, so the time taken says nothing of where they differ. */
function equalInConstantTime(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!
  return difference === 0
}

function eventOf(rawBody: string | Uint8Array, id: string): WebhookEvent {
  let text: string
  let body: unknown
  try {
    text = typeof rawBody === 'string' ? rawBody : new TextDecoder('utf-8', { fatal: true }).decode(rawBody)
    body = parseJson(text)
  } catch (cause) {
    throw malformed('the body is not JSON', cause)
  }
  const event = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>
  const fields = [event.id, event.type, event.timestamp].every((field) => typeof field === 'string')
  if (!fields || Array.isArray(body) || typeof event.data !== 'object' || event.data === null)
    throw malformed('the body is not an event ({ id, type, timestamp, data })')
  if (event.id !== id) throw malformed("the body's id is not the delivery's webhook-id")
  return body as WebhookEvent
}
