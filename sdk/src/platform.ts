// What the client needs to know of the platform it runs on, found without importing anything (it runs on
// Node.js, Deno, Bun and in browsers): the environment, whether this is a browser page, the User-Agent, and random
// idempotency keys.
import { SDK_VERSION } from './version.js'

type NodeLike = { env?: Record<string, string | undefined>; versions?: { node?: string } }
const nodeProcess = () => (globalThis as { process?: NodeLike }).process

/** The environment's variable where the platform has one (Node.js, Bun, Deno 2). */
export function fromEnvironment(name: string): string | undefined {
  return nodeProcess()?.env?.[name] || undefined
}

/** A browser page (a window with a document): where an API key would be readable by anyone who opens it. */
export function isBrowser(): boolean {
  const g = globalThis as { window?: unknown; document?: unknown; navigator?: unknown }
  return typeof g.window !== 'undefined' && typeof g.document !== 'undefined' && typeof g.navigator !== 'undefined'
}

/**
 * `petstore-sdk/1.0.0 node/20.12.0`; undefined in a browser, which sends its own User-Agent (Chromium ignores a
 * page's, and in other browsers it would make every request need a CORS preflight entry of its own).
 */
export function userAgent(): string | undefined {
  if (isBrowser()) return undefined
  const node = nodeProcess()?.versions?.node
  return `petstore-sdk/${SDK_VERSION}${node ? ` node/${node}` : ''}`
}

/**
 * A random UUID (version 4) for an Idempotency-Key. `crypto.randomUUID` exists only in secure contexts (https, or
 * http on localhost): a page on `http://shop.example` has `crypto.getRandomValues` only, so the UUID is made from it.
 */
export function randomUuid(): string {
  const crypto = globalThis.crypto
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID()
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  bytes[6] = (bytes[6]! & 0x0f) | 0x40
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
