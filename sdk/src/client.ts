import { Messages } from './resources/messages.js'
import { Orders } from './resources/orders.js'
import { Pets } from './resources/pets.js'
import type { ResponseInfo, TransportSettings } from './transport.js'

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080/v1'
export const DEFAULT_MESSAGES_URL = 'http://127.0.0.1:8081'

export interface PetstoreOptions {
  /** The API key (`ps_live_…`, `ps_test_…`). Default: the environment's PETSTORE_API_KEY, where there is one. */
  apiKey?: string
  /** The pet store's base URL, with its version. Default: PETSTORE_BASE_URL, else `http://127.0.0.1:8080/v1`. */
  baseUrl?: string
  /** The messages interface's base URL. Default: PETSTORE_MESSAGES_URL, else `http://127.0.0.1:8081`. */
  messagesUrl?: string
  /** Retries of a failed attempt (see the README for which failures). Default 2; 0 throws at once. */
  maxRetries?: number
  /** Time for one attempt, from sending to the last byte of the answer. Default 30,000 ms. */
  timeoutMs?: number
  /** The fetch to use (a proxy agent, a test double). Default: the platform's. */
  fetch?: typeof fetch
  /** Called for every HTTP answer, retried attempts included: watch the quota with `info.rateLimit`. */
  onResponse?: (info: ResponseInfo) => void
}

/** The environment's variable where the platform has one (Node.js, Bun, Deno 2), without importing anything. */
function fromEnvironment(name: string): string | undefined {
  const process = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
  return process?.env?.[name] || undefined
}

function count(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) throw new RangeError(`${name} must be an integer of at least ${min}; got ${value}`)
  return value
}

/** The Petstore API client. One instance per API key; it keeps no connection or state of its own. */
export class Petstore {
  readonly pets: Pets
  /** Experimental on the service's side: may change without a deprecation period. */
  readonly orders: Orders
  readonly messages: Messages
  readonly baseUrl: string
  readonly messagesUrl: string

  constructor(options: PetstoreOptions = {}) {
    const apiKey = options.apiKey ?? fromEnvironment('PETSTORE_API_KEY')
    if (!apiKey) throw new TypeError('Petstore: no API key; pass { apiKey } or set PETSTORE_API_KEY')
    this.baseUrl = (options.baseUrl ?? fromEnvironment('PETSTORE_BASE_URL') ?? DEFAULT_BASE_URL).replace(/\/+$/, '')
    this.messagesUrl = (options.messagesUrl ?? fromEnvironment('PETSTORE_MESSAGES_URL') ?? DEFAULT_MESSAGES_URL).replace(/\/+$/, '')
    const platformFetch = globalThis.fetch
    const settings: TransportSettings = {
      apiKey,
      maxRetries: count('maxRetries', options.maxRetries ?? 2, 0),
      timeoutMs: count('timeoutMs', options.timeoutMs ?? 30_000, 1),
      // Called unbound, the platform's fetch throws "Illegal invocation" in browsers.
      fetch: options.fetch ?? ((input, init) => platformFetch(input, init)),
      onResponse: options.onResponse,
    }
    this.pets = new Pets(settings, this.baseUrl)
    this.orders = new Orders(settings, this.baseUrl)
    this.messages = new Messages(settings, this.messagesUrl)
  }
}
