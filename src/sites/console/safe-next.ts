// Where an operator goes after logging in: back to the console page that sent them to log in, never anywhere
// else. Only a relative path under /console is taken; `//evil.example`, `/\evil.example`, `https://…`, dot
// segments out of /console and the log-in and setup pages themselves fall back to the overview.

const AFTER_LOGIN = '/console'

export function safeNext(raw: string | undefined): string {
  if (raw === undefined || raw.length > 1000) return AFTER_LOGIN
  // Backslashes (browsers read them as slashes), control characters and whitespace: nothing a real page link has.
  if (
    !(raw === '/console' || raw.startsWith('/console/') || raw.startsWith('/console?')) ||
    /[\\\s\p{Cc}\p{Cf}]/u.test(raw) ||
    raw.includes('//')
  )
    return AFTER_LOGIN
  let url: URL
  try {
    url = new URL(raw, 'http://console.invalid')
  } catch {
    return AFTER_LOGIN
  }
  const path = url.pathname
  if (url.origin !== 'http://console.invalid' || !(path === '/console' || path.startsWith('/console/')))
    return AFTER_LOGIN
  if (path.startsWith('/console/login') || path.startsWith('/console/setup') || path.startsWith('/console/logout'))
    return AFTER_LOGIN
  return `${path}${url.search}`
}

/** The log-in page that returns to `path` afterwards (the overview needs no `next`). */
export function loginFor(path: string): string {
  const next = safeNext(path)
  return next === AFTER_LOGIN ? '/console/login' : `/console/login?next=${encodeURIComponent(next)}`
}
