// Where a visitor goes after logging in: back to the page of the same site that sent them to log in, never
// anywhere else. One guard for both sites, each naming its own bounds. Only a relative path under the site's base
// is taken; `//evil.example`, `/\evil.example`, `https://…`, encoded tricks, dot segments out of the base and the
// site's log-in, setup and log-out pages all fall back to the site's home.

export interface SiteBounds {
  /** The site's path: `/portal`, `/console`. */
  base: string
  /** Where a visitor goes when `next` is missing or refused. */
  home: string
}

const ORIGIN = 'http://site.invalid'

export function safeNext(raw: string | undefined, { base, home }: SiteBounds): string {
  if (raw === undefined || raw.length > 1000) return home
  const within = (path: string) => path === base || path.startsWith(`${base}/`)
  // Backslashes (browsers read them as slashes), control characters and whitespace: nothing a real page link has.
  if (!(within(raw) || raw.startsWith(`${base}?`)) || /[\\\s\p{Cc}\p{Cf}]/u.test(raw) || raw.includes('//')) return home
  let url: URL
  try {
    url = new URL(raw, ORIGIN)
  } catch {
    return home
  }
  // Dot segments (`/portal/../admin`) are resolved by the parser: what is left must still be a page of the site.
  const path = url.pathname
  if (url.origin !== ORIGIN || !within(path)) return home
  if (['login', 'setup', 'logout'].some((page) => path.startsWith(`${base}/${page}`))) return home
  return `${path}${url.search}`
}

/** The site's log-in page that returns to `path` afterwards (the home page needs no `next`). */
export function loginFor(path: string, site: SiteBounds): string {
  const next = safeNext(path, site)
  const login = `${site.base}/login`
  return next === site.home ? login : `${login}?next=${encodeURIComponent(next)}`
}
