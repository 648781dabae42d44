// Sends one webhook delivery: a POST to the integrator's URL, made safe for a URL anyone can choose. The host is
// resolved once, every address it resolves to is held to the address policy (address-policy.ts), and the
// connection goes to a checked address itself, so a DNS answer that changes between the check and the connection
// (DNS rebinding) cannot lead it into our network. One deadline covers the whole attempt and at most 1 KiB of the
// answer is read, so a slow or hostile receiver cannot hold a worker. Redirects are never followed (their target
// would escape the check). The outcome is a DeliveryResult for the delivery log and the retry schedule, never an
// exception; its error message is safe to show the integrator.
import dns from 'node:dns'
import { setMaxListeners } from 'node:events'
import { isIP } from 'node:net'
import type { Dispatcher } from 'undici'
import type { AddressPolicy } from './address-policy.js'
import { createDeliveryPools, type ResolvedAddress } from './delivery-pools.js'

export type DeliveryErrorClass =
  | 'timeout'
  | 'refused'
  | 'tls'
  | 'blocked_address'
  | 'dns'
  | 'redirect'
  | 'network'
  | 'http_status'

export interface DeliveryResult {
  /** True exactly for a 2xx answer. */
  ok: boolean
  status?: number
  errorClass?: DeliveryErrorClass
  /** One line for the integrator: names nothing of ours beyond the target's own host and addresses. */
  error?: string
  durationMs: number
  /** The answer's first 1024 bytes as UTF-8, cut at a character boundary. */
  responseExcerpt?: string
  /** From Retry-After, on a 429 or 503 only. */
  retryAfterSeconds?: number
}

/** A host's addresses, as dns.promises.lookup(host, { all: true }) gives them (injected by tests). */
export type Resolve = (host: string) => Promise<readonly ResolvedAddress[]>

export interface WebhookRequest {
  url: string
  headers: Record<string, string>
  body: string
}

type Outcome = Omit<DeliveryResult, 'durationMs'>

const MAX_URL_LENGTH = 2048
const EXCERPT_BYTES = 1024
// Ours to set: the Host header must be the URL's (it is what the receiver and its certificate are for), and the
// body's framing is the body's.
const OWN_HEADERS = new Set([
  'host',
  'user-agent',
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
])
const TLS_CODE = /^(?:ERR_TLS|ERR_SSL|ERR_OSSL|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)/

/** Why the URL cannot be a webhook's, or undefined when it can. Also checked when the endpoint is saved. */
export function checkWebhookUrl(url: string, { allowHttp }: { allowHttp: boolean }): string | undefined {
  const parsed = parseWebhookUrl(url, { allowHttp })
  return typeof parsed === 'string' ? parsed : undefined
}

/** The URL parsed, or why it cannot be a webhook's (checkWebhookUrl's answer): each attempt parses it once. */
function parseWebhookUrl(url: string, { allowHttp }: { allowHttp: boolean }): URL | string {
  if (url.length > MAX_URL_LENGTH) return `the URL is longer than ${MAX_URL_LENGTH} characters`
  // The URL parser drops these silently; a URL is stored and shown as it was given, so it must be what is used.
  if (/[\s\u0000-\u001f\u007f]/.test(url)) return 'the URL must not contain spaces or control characters'
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return 'the URL is not a valid absolute URL'
  }
  if (parsed.protocol !== 'https:' && !(allowHttp && parsed.protocol === 'http:')) {
    return allowHttp ? 'the URL must start with https:// or http://' : 'the URL must start with https://'
  }
  if (parsed.username !== '' || parsed.password !== '') return 'the URL must not contain a user name or password'
  if (parsed.hostname === '') return 'the URL must have a host'
  // `#` can only be the fragment's mark once parsed (elsewhere it is escaped), even an empty one.
  if (parsed.href.includes('#')) return 'the URL must not contain a fragment (#)'
  return parsed
}

const lookupAll: Resolve = (host) => dns.promises.lookup(host, { all: true, verbatim: true })

export function createWebhookHttp({
  policy,
  timeoutMs,
  userAgent,
  allowHttp = false,
  resolve = lookupAll,
}: {
  policy: AddressPolicy
  timeoutMs: number
  userAgent: string
  /** Whether http: URLs may be used (outside production); https: always may. */
  allowHttp?: boolean
  resolve?: Resolve
}) {
  const timedOut = (host: string) => fail('timeout', `${host} did not answer within ${timeoutMs} ms`)

  const pools = createDeliveryPools({ timeoutMs })

  /** The host's addresses, every one of them allowed by the policy; or why there are none to connect to. */
  async function addressesOf(host: string): Promise<ResolvedAddress[] | Outcome> {
    if (isIP(host) !== 0) {
      const verdict = policy.check(host)
      if (!verdict.ok) return fail('blocked_address', `${host} is ${described(verdict.range)}, ${NOT_REACHED}`)
      return [{ address: host, family: isIP(host) }]
    }
    let found: readonly ResolvedAddress[]
    try {
      found = await resolve(host)
    } catch (err) {
      return fail('dns', dnsFailure(host, codeOf(err)))
    }
    if (found.length === 0) return fail('dns', `${host} has no address`)
    // Every address, not only the one connected to: the connection may fall back to any of them.
    for (const { address } of found) {
      const verdict = policy.check(address)
      if (!verdict.ok) {
        // The range, not the address: an internal name's private address is nobody else's business.
        return fail('blocked_address', `${host} resolves to ${described(verdict.range)}, ${NOT_REACHED}`)
      }
    }
    return found.map(({ address }) => ({ address, family: isIP(address) }))
  }

  async function exchange(
    url: URL,
    host: string,
    addresses: ResolvedAddress[],
    request: WebhookRequest,
    abort: AbortController,
  ): Promise<Outcome> {
    let response: Dispatcher.ResponseData
    try {
      response = await pools.poolFor(url.origin, addresses).request({
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: headersOf(request, userAgent),
        body: request.body,
        signal: abort.signal,
      })
    } catch (err) {
      if (abort.signal.aborted) return timedOut(host)
      // Only a header value the caller gave that HTTP cannot carry.
      if (codeOf(err) === 'UND_ERR_INVALID_ARG') return fail('network', 'the request could not be made')
      return failure(host, err, url.protocol === 'https:')
    }
    // With the answer's status in hand, the receiver has answered: that is the outcome, not a timeout (which would
    // send the delivery again), with as much of the body as came before the deadline or a broken connection.
    const chunks: Buffer[] = []
    let size = 0
    let complete = false
    try {
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        chunks.push(chunk)
        size += chunk.length
        if (size >= EXCERPT_BYTES) break
      }
      complete = size < EXCERPT_BYTES
    } catch {
      // Cut: answered with what came.
    }
    // An answer read to its end leaves its connection to the pool for the next attempt; any other (cut at the
    // excerpt, timed out, broken) is closed, so no body beyond the excerpt is waited for.
    if (!complete) response.body.destroy()
    return answered(response, host, Buffer.concat(chunks, size), complete)
  }

  /** The host's checked addresses, or the timeout's outcome should the deadline (`abort`) come first. */
  function addressesBy(host: string, abort: AbortController): Promise<ResolvedAddress[] | Outcome> {
    const found = addressesOf(host)
    // An address needs no lookup: nothing to race.
    if (isIP(host) !== 0) return found
    // The lookup cannot be stopped; when the deadline comes first, its answer is dropped.
    const expired = new Promise<Outcome>((resolve) =>
      abort.signal.addEventListener('abort', () => resolve(timedOut(host)), { once: true }),
    )
    return Promise.race([found, expired])
  }

  /** One attempt, within the deadline of `abort`: the lookup, the connection, the request and the answer's excerpt. */
  async function attempt(request: WebhookRequest, abort: AbortController): Promise<Outcome> {
    const url = parseWebhookUrl(request.url, { allowHttp })
    if (typeof url === 'string') return fail('refused', url)
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
    const addresses = await addressesBy(host, abort)
    if (!Array.isArray(addresses)) return addresses as Outcome
    return exchange(url, host, addresses, request, abort)
  }

  async function timed(request: WebhookRequest, abort: AbortController): Promise<DeliveryResult> {
    const started = performance.now()
    let outcome: Outcome
    try {
      outcome = await attempt(request, abort)
    } catch {
      outcome = fail('network', 'the delivery could not be attempted')
    }
    return { ...outcome, durationMs: Math.round(performance.now() - started) }
  }

  /**
   * Attempts that start together share one deadline (one AbortController and one timer: a tenth of each attempt's
   * CPU when each had its own, BENCHMARKS.md 31); each still has the whole WEBHOOK_TIMEOUT_MS from its start.
   */
  async function sendAll(requests: readonly WebhookRequest[]): Promise<DeliveryResult[]> {
    const abort = new AbortController()
    // Each attempt's request listens to it: as many listeners as attempts, on purpose.
    setMaxListeners(Math.max(requests.length * 2, 10), abort.signal)
    const timer = setTimeout(() => abort.abort(), timeoutMs)
    try {
      return await Promise.all(requests.map((request) => timed(request, abort)))
    } finally {
      clearTimeout(timer)
    }
  }

  return {
    /**
     * Why `url` cannot be delivered to now (its form, or an address its host resolves to), or undefined: what an
     * endpoint is held to when it is saved, as each attempt is.
     */
    async check(url: string): Promise<string | undefined> {
      const problem = checkWebhookUrl(url, { allowHttp })
      if (problem !== undefined) return problem
      const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1')
      const found = await addressesOf(host)
      return Array.isArray(found) ? undefined : (found as Outcome).error
    },

    async send(request: WebhookRequest): Promise<DeliveryResult> {
      return (await sendAll([request]))[0]!
    },

    /** Attempts that start together (a batch handed to the delivery thread), each with the whole timeout. */
    sendAll,
  }
}

const NOT_REACHED = 'which webhooks may not reach'

function fail(errorClass: DeliveryErrorClass, error: string): Outcome {
  return { ok: false, errorClass, error }
}

/** "a loopback address", "an unspecified address", "an IPv4-mapped loopback address". */
function described(range: string): string {
  if (range === 'invalid') return 'not an IP address'
  return `${/^(?:[aeio]|u(?!ni))/i.test(range) ? 'an' : 'a'} ${range} address`
}

// undici sets content-length from the (string) body itself.
function headersOf(request: WebhookRequest, userAgent: string): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const name in request.headers) if (!OWN_HEADERS.has(name.toLowerCase())) headers[name] = request.headers[name]!
  headers['user-agent'] = userAgent
  headers['content-type'] = 'application/json'
  return headers
}

function answered(res: Dispatcher.ResponseData, host: string, body: Buffer, complete: boolean): Outcome {
  const status = res.statusCode
  const outcome: Outcome = { ok: status >= 200 && status < 300, status }
  if (body.length > 0) outcome.responseExcerpt = excerptOf(body, complete)
  if (outcome.ok) return outcome
  if (status >= 300 && status < 400) {
    return {
      ...outcome,
      errorClass: 'redirect',
      error: `${host} answered ${status}, a redirect, which webhooks do not follow`,
    }
  }
  outcome.errorClass = 'http_status'
  outcome.error = `${host} answered ${status}`
  if (status === 429 || status === 503) {
    const header = res.headers['retry-after']
    const seconds = retryAfterOf(Array.isArray(header) ? header[0] : header)
    if (seconds !== undefined) outcome.retryAfterSeconds = seconds
  }
  return outcome
}

function excerptOf(body: Buffer, complete: boolean): string {
  const cut = body.length > EXCERPT_BYTES || !complete
  // Streaming, the decoder keeps back a character cut in two instead of writing U+FFFD for it.
  return new TextDecoder('utf-8').decode(body.subarray(0, EXCERPT_BYTES), { stream: cut })
}

/** Retry-After in seconds: delta-seconds, or an HTTP-date (a date already past is 0). */
function retryAfterOf(value: string | undefined): number | undefined {
  const text = value?.trim()
  if (!text) return undefined
  if (/^\d+$/.test(text)) return Number(text)
  // A date has a month or day name; Date.parse alone would read "-1" or "2" as a year.
  const at = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000))
}

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | undefined)?.code
  if (typeof code === 'string') return code
  // With more than one address to try, net reports every attempt's failure at once.
  if (err instanceof AggregateError) return codeOf(err.errors[0])
  return undefined
}

function dnsFailure(host: string, code: string | undefined): string {
  if (code === 'ENOTFOUND' || code === 'ENODATA') return `${host} was not found in DNS`
  if (code === 'EAI_AGAIN') return `the DNS lookup of ${host} failed for now`
  return `the DNS lookup of ${host} failed${code ? ` (${code})` : ''}`
}

function failure(host: string, err: unknown, https: boolean): Outcome {
  const code = codeOf(err)
  // EPROTO is OpenSSL refusing what the other end sent (a plain HTTP server on an https: URL, an old protocol).
  if (code === 'EPROTO' && https) return fail('tls', `the TLS handshake with ${host} failed (${code})`)
  if (code === 'ECONNREFUSED') return fail('refused', `${host} refused the connection`)
  if (code && TLS_CODE.test(code)) return fail('tls', `the TLS handshake with ${host} failed (${code})`)
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return fail('dns', dnsFailure(host, code))
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT')
    return fail('timeout', `the connection to ${host} timed out`)
  return fail('network', `the connection to ${host} failed${code ? ` (${code})` : ''}`)
}
