// Cursor paging as the service does it: a page is a bare JSON array, and `Link: <…>; rel="next"` (RFC 8288)
// names the next page while there is one. The client reads the cursor from that URL and asks for the next page
// at its own baseUrl with the same filters: the Link's origin can differ behind a proxy, and the API key is
// never sent to an address the caller did not configure.
import { send, type RequestOptions, type TransportSettings } from './transport.js'

export interface Page<T> {
  data: T[]
  /** Pass it as `cursor` to get the next page; undefined on the last page. */
  nextCursor: string | undefined
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
export async function getPage<T>(settings: TransportSettings, url: string, options: RequestOptions | undefined): Promise<Page<T>> {
  const answer = await send(settings, { method: 'GET', url, options })
  return { data: answer.data as T[], nextCursor: nextCursorOf(answer.headers.get('link')) }
}

/** Every item of every page, one page request at a time, starting from the first page. */
export async function* everyItem<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined
  do {
    const page = await fetchPage(cursor)
    yield* page.data
    cursor = page.nextCursor
  } while (cursor !== undefined)
}

/** `base` + `path` + the defined query parameters. */
export function urlOf(base: string, path: string, query: Record<string, string | number | bigint | undefined> = {}): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value))
  const search = params.toString()
  return `${base}${path}${search ? `?${search}` : ''}`
}
