// Checks a URL setting (DATABASE_URL, REDIS_URL, MAIL_URL, the webhook and public URLs) and says what is wrong
// with it in one phrase: `port "54x2" is not a number`, `host is missing`. Node's URL parser says only "Invalid URL".
// A message quotes the scheme, the host or the port, never the URL: the user:password part, and what a missing
// `@` or an unencoded `/` in a password turns into something else, must not reach a terminal or a log.

interface UrlRule {
  /** Accepted schemes with their colon, lower case: `['postgres:', 'postgresql:']`. */
  schemes: readonly string[]
  /** The accepted forms, for the message: `postgres://[user:password@]host[:port]/database`. */
  expected: string
}

/** The parts of `scheme://[userinfo@]host[:port]…`, split leniently: a URL Node refuses still gets a reason. */
function split(rest: string): { credentials: boolean; host: string; port: string | undefined } {
  // A password may hold an unencoded `@` or `/`: everything up to the last `@` is taken as credentials, so that
  // no piece of a password can be quoted as a host or a port (a later `@`, in a query, only makes this cruder).
  const at = rest.lastIndexOf('@')
  const afterCredentials = at === -1 ? rest : rest.slice(at + 1)
  const end = afterCredentials.search(/[/?#]/)
  const hostPort = end === -1 ? afterCredentials : afterCredentials.slice(0, end)
  const bracket = /^(\[[^\]]*\])(?::(.*))?$/.exec(hostPort)
  if (bracket) return { credentials: at !== -1, host: bracket[1]!, port: bracket[2] }
  const colon = hostPort.lastIndexOf(':')
  return colon === -1
    ? { credentials: at !== -1, host: hostPort, port: undefined }
    : { credentials: at !== -1, host: hostPort.slice(0, colon), port: hostPort.slice(colon + 1) }
}

/** Why Node refused the URL, from the lenient split: the first problem found. */
function diagnose(afterScheme: string): string {
  const { credentials, host, port } = split(afterScheme)
  if (host === '') return 'host is missing'
  if (port !== undefined && port !== '' && !/^\d+$/.test(port)) {
    // Without an `@`, `user:password/db` reads as host `user` and port `password`: quote only what looks like a
    // mistyped port (short, with a digit), never what may be a password.
    const quoted = credentials || (port.length <= 5 && /\d/.test(port))
    return quoted
      ? `port "${port}" is not a number`
      : 'port is not a number (or the host is missing after user:password@)'
  }
  if (port !== undefined && port !== '' && Number(port) > 65535) return `port ${port} is not between 1 and 65535`
  if (!host.startsWith('[') && !/^[A-Za-z0-9._~%!$&'()*+,;=-]+$/.test(host))
    return `host "${host}" is not a valid host name`
  return ENCODE
}

const ENCODE = 'is not a valid URL (in a user name or password, / ? # @ : and % must be percent-encoded)'

/** Parses a URL setting; throws an Error whose message names the problem and contains no credential. */
export function checkUrl(raw: string, rule: UrlRule): URL {
  const scheme = /^([a-z][a-z0-9+.-]*:)/i.exec(raw)?.[1]?.toLowerCase()
  if (scheme === undefined) throw new Error(`is not a URL: expected ${rule.expected}`)
  if (!rule.schemes.includes(scheme)) throw new Error(`scheme "${scheme}" is not supported: expected ${rule.expected}`)
  const afterScheme = raw.slice(scheme.length)
  if (!afterScheme.startsWith('//')) throw new Error(`must start with ${scheme}// (expected ${rule.expected})`)
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new Error(diagnose(afterScheme.slice(2)))
  }
  // PostgreSQL's socket form names the host in the query: postgres:///db?host=/var/run/postgresql.
  if (url.hostname === '' && !url.searchParams.has('host')) throw new Error('host is missing')
  if (url.port === '0') throw new Error('port 0 is not between 1 and 65535')
  // `user:1234/rest@host` is a valid URL to Node, with host `user`, port 1234 and the rest of the password in the
  // path: the connection would go to the wrong host.
  if (url.port !== '' && url.username === '' && `${url.pathname}${url.search}${url.hash}`.includes('@'))
    throw new Error(ENCODE)
  return url
}
