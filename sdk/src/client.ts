import { RateLimitGate } from './gate.js'
import { createLog, type Logger, type LogLevel } from './logger.js'
import { checkedHeaders, count, optionalCount } from './options.js'
import { fromEnvironment, isBrowser, userAgent } from './platform.js'
import { Events } from './resources/events.js'
import { Messages } from './resources/messages.js'
import { Orders } from './resources/orders.js'
import { Pets } from './resources/pets.js'
import { Webhooks } from './resources/webhooks.js'
import type { ResponseInfo, TransportSettings } from './transport.js'

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080/v1'
export const DEFAULT_MESSAGES_URL = 'http://127.0.0.1:8081'

export interface PetstoreOptions {
  /** The API key (`ps_live_…`, `ps_test_…`). Default: the environment's PETSTORE_API_KEY, where there is one. */
  apiKey?: string | undefined
  /** The pet store's base URL, with its version. Default: PETSTORE_BASE_URL, else `http://127.0.0.1:8080/v1`. */
  baseUrl?: string | undefined
  /** The messages interface's base URL. Default: PETSTORE_MESSAGES_URL, else `http://127.0.0.1:8081`. */
  messagesUrl?: string | undefined
  /** Retries of a failed attempt (see the README for which failures). Default 2; 0 throws at once. */
  maxRetries?: number | undefined
  /** Time for one attempt, from sending to the last byte of the answer. Default 30,000 ms. */
  timeoutMs?: number | undefined
  /** Time for a whole call, retries and waits included; a wait that would end later throws at once. Default none. */
  deadlineMs?: number | undefined
  /** Requests in flight at once on this client. Default: no cap (the rate-limit gate still applies). */
  maxConcurrency?: number | undefined
  /** The fetch to use (a proxy agent, a test double). Default: the platform's. */
  fetch?: typeof fetch | undefined
  /** Called for every HTTP answer, retried attempts included: watch the quota with `info.rateLimit`. */
  onResponse?: ((info: ResponseInfo) => void) | undefined
  /** Where log lines go. Default: the console. */
  logger?: Logger | undefined
  /** The lowest level logged. Default: PETSTORE_LOG where the platform has an environment, else 'warn'. */
  logLevel?: LogLevel | undefined
  /** Allows the client in a browser page, where anyone who opens the page can read the API key. Default false. */
  dangerouslyAllowBrowser?: boolean | undefined
  /**
   * Headers sent with every call (a tracing header, a tenant tag); a call's `headers` add to them. Never the ones the
   * client sets itself (Authorization, Idempotency-Key, User-Agent, Accept, Content-Type): those throw a TypeError.
   */
  defaultHeaders?: Record<string, string> | undefined
}

const BROWSER_REFUSED =
  'Petstore: refusing to run in a browser. An API key in a web page can be read by anyone who opens it and used ' +
  'to act as your account. Call the API from your server; if the key is meant to be public (a demo account, or ' +
  "the user's own key), pass { dangerouslyAllowBrowser: true }."

/** The Petstore API client. One instance per API key: its rate-limit gate keeps the key's quota for all its calls. */
export class Petstore {
  readonly pets: Pets
  /** Experimental on the service's side: may change without a deprecation period. */
  readonly orders: Orders
  readonly messages: Messages
  /** Webhook endpoints (`ps.webhooks.endpoints`) and checking a delivery (`ps.webhooks.verify`). */
  readonly webhooks: Webhooks
  /** The events recorded for the account, newest first. */
  readonly events: Events
  readonly baseUrl: string
  readonly messagesUrl: string

  constructor(options: PetstoreOptions = {}) {
    if (isBrowser() && !options.dangerouslyAllowBrowser) throw new Error(BROWSER_REFUSED)
    const apiKey = options.apiKey ?? fromEnvironment('PETSTORE_API_KEY')
    if (!apiKey) throw new TypeError('Petstore: no API key; pass { apiKey } or set PETSTORE_API_KEY')
    const baseUrl = options.baseUrl ?? fromEnvironment('PETSTORE_BASE_URL')
    if (baseUrl === undefined && apiKey.startsWith('ps_live_')) {
      throw new TypeError(
        `Petstore: a live key (ps_live_…) with the local default baseUrl ${DEFAULT_BASE_URL}; pass { baseUrl } (or ` +
          `set PETSTORE_BASE_URL) to your service's address`,
      )
    }
    this.baseUrl = (baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '')
    this.messagesUrl = (
      options.messagesUrl ??
      fromEnvironment('PETSTORE_MESSAGES_URL') ??
      DEFAULT_MESSAGES_URL
    ).replace(/\/+$/, '')
    const log = createLog({ logger: options.logger, logLevel: options.logLevel })
    const platformFetch = globalThis.fetch
    const settings: TransportSettings = {
      apiKey,
      maxRetries: count('maxRetries', options.maxRetries ?? 2, 0),
      timeoutMs: count('timeoutMs', options.timeoutMs ?? 30_000, 1),
      deadlineMs: optionalCount('deadlineMs', options.deadlineMs, 1),
      // Called unbound, the platform's fetch throws "Illegal invocation" in browsers.
      fetch: options.fetch ?? ((input, init) => platformFetch(input, init)),
      onResponse: options.onResponse,
      log,
      gate: new RateLimitGate({ maxConcurrency: optionalCount('maxConcurrency', options.maxConcurrency, 1), log }),
      userAgent: userAgent(),
      defaultHeaders: checkedHeaders('defaultHeaders', options.defaultHeaders),
    }
    this.pets = new Pets(settings, this.baseUrl)
    this.orders = new Orders(settings, this.baseUrl)
    this.messages = new Messages(settings, this.messagesUrl)
    this.webhooks = new Webhooks(settings, this.baseUrl)
    this.events = new Events(settings, this.baseUrl)
  }
}
