// Where a visitor goes after logging in: back to the portal page that sent them to log in, never anywhere else.
// Only a relative path under /portal/ is taken; `//evil.example`, `/\evil.example`, `https://…`, encoded tricks
// and the log-in page itself all fall back to the keys page.

const AFTER_LOGIN = '/portal/keys'

export function safeNext(raw: string | undefined): string {
  if (raw === undefined || raw.length > 1000) return AFTER_LOGIN
  // Backslashes (browsers read them as slashes), control characters and whitespace: nothing a real page link has.
  if (!raw.startsWith('/portal/') || /[\\\s\p{Cc}\p{Cf}]/u.test(raw) || raw.includes('//')) return AFTER_LOGIN
  let url: URL
  try {
    url = new URL(raw, 'http://portal.invalid')
  } catch {
    return AFTER_LOGIN
  }
  // Dot segments (`/portal/../admin`) are resolved by the parser: what is left must still be a portal page.
  if (
    url.origin !== 'http://portal.invalid' ||
    !url.pathname.startsWith('/portal/') ||
    url.pathname.startsWith('/portal/login')
  )
    return AFTER_LOGIN
  return `${url.pathname}${url.search}`
}

/** The log-in page that returns to `path` afterwards (the keys page needs no `next`). */
export function loginFor(path: string): string {
  const next = safeNext(path)
  return next === AFTER_LOGIN ? '/portal/login' : `/portal/login?next=${encodeURIComponent(next)}`
}
