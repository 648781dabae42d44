// Cursor paging as the service does it: a page is a bare JSON array, and `Link: <…>; rel="next"` (RFC 8288)
// names the next page while there is one. The client reads the cursor from that URL and asks for the next page
// at its own baseUrl with the same filters: the Link's origin can differ behind a proxy, and the API key is
// never sent to an address the caller did not configure.
import type { ApiPromise } from './api-promise.js'
import type { RateLimit } from './quota.js'
import { call, type RequestOptions, type TransportSettings } from './transport.js'

export interface Page<T> {
  data: T[]
  /** Pass it as `cursor` to get the next page; undefined on the last page. */
  nextCursor: string | undefined
  /** The X-Request-Id of the page's answer. */
  requestId: string | undefined
  /** The quota the page's answer reported (undefined without X-RateLimit-* headers). */
  rateLimit: RateLimit | undefined
}

/** The `cursor` of the `rel="next"` link of a Link header, if any. */
export function nextCursorOf(link: string | null): string | undefined {
  if (!link) return undefined
  for (const match of link.matchAll(/<([^>]*)>((?:\s*;\s*(?:[^;,"]|"[^"]*")+)*)/g)) {
    const rels = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(match[2] ?? '')
    const relations = (rels?.[1] ?? rels?.[2] ?? '').toLowerCase().split(/\s+/)
    if (!relations.includes('next')) continue
    const cursor = new URL(match[1]!, 'http://relative.invalid').searchParams.get('cursor')
    if (cursor) return cursor
  }
  return undefined
}

/** GET one page of a list at `url`: the bare array, and the cursor of its `Link: rel="next"`. */
export function getPage<T>(
  settings: TransportSettings,
  url: string,
  options: RequestOptions | undefined,
): ApiPromise<Page<T>> {
  return call(
    settings,
    () => ({ method: 'GET', url, options }),
    (answer) => ({
      data: answer.data as T[],
      nextCursor: nextCursorOf(answer.response.headers.get('link')),
      requestId: answer.requestId,
      rateLimit: answer.rateLimit,
    }),
  )
}

/** Every item of every page, one page request at a time, starting from the first page. */
export async function* everyItem<T>(
  fetchPage: (cursor: string | undefined) => PromiseLike<Page<T>>,
): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined
  do {
    const page = await fetchPage(cursor)
    yield* page.data
    cursor = page.nextCursor
  } while (cursor !== undefined)
}

/** `base` + `path` + the defined query parameters. */
export function urlOf(
  base: string,
  path: string,
  query: Record<string, string | number | bigint | undefined> = {},
): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value))
  const search = params.toString()
  return `${base}${path}${search ? `?${search}` : ''}`
}
