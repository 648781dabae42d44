// What DATABASE_URL names: a SQLite file (a plain path, a `file:` or `sqlite:` URL, `:memory:`) or a PostgreSQL
// database (`postgres://`). Config checks it at start with this; openDatabase reads it with the same.
import { fileURLToPath } from 'node:url'
import { checkUrl } from './config-urls.js'

export type DatabaseTarget = { dialect: 'sqlite'; path: string } | { dialect: 'postgres'; url: string }

const POSTGRES = { schemes: ['postgres:', 'postgresql:'], expected: 'postgres://[user:password@]host[:port]/database' }
const FORMS = 'a file path, a file: or sqlite: URL, or postgres://[user:password@]host[:port]/database'

/**
 * Reads a DATABASE_URL; throws an Error that says what is wrong, without any credential (the caller names the
 * variable).
 */
export function parseDatabaseUrl(raw: string): DatabaseTarget {
  if (raw.trim() === '') throw new Error('must not be empty')
  if (/^postgres(ql)?:/i.test(raw)) {
    checkUrl(raw, POSTGRES)
    return { dialect: 'postgres', url: raw }
  }
  if (/^file:/i.test(raw)) return sqlite(fileUrlPath(raw))
  if (raw.startsWith('sqlite://')) return sqlite(raw.slice('sqlite://'.length))
  if (raw.startsWith('sqlite:')) return sqlite(raw.slice('sqlite:'.length))
  const scheme = /^([a-z][a-z0-9+.-]*:)\/\//i.exec(raw)
  if (scheme) throw new Error(`scheme "${scheme[1]!.toLowerCase()}" is not supported: use ${FORMS}`)
  return sqlite(raw)
}

function sqlite(path: string): DatabaseTarget {
  if (path.trim() === '') throw new Error('the SQLite path is empty')
  return { dialect: 'sqlite', path }
}

/**
 * `file:///abs/path` and `file://localhost/abs/path` are URLs (percent-escapes decoded); `file:/abs/path`,
 * `file:./rel/path` and `file:rel` name the path as written: Node's URL would make `file:./data/p.db` `/data/p.db`.
 */
function fileUrlPath(raw: string): string {
  const rest = raw.slice('file:'.length)
  if (/[?#]/.test(rest))
    throw new Error('a file: URL takes no ?query or #fragment (SQLite URI parameters are not read)')
  if (rest.startsWith('//')) {
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      throw new Error('is not a valid file: URL (file:///absolute/path or file:relative/path)')
    }
    if (url.hostname !== '' && url.hostname !== 'localhost') {
      throw new Error(
        `the host of a file: URL must be empty or localhost, not "${url.hostname}" (file:///absolute/path or ` +
          `file:relative/path)`,
      )
    }
    return fileURLToPath(url)
  }
  try {
    return decodeURIComponent(rest)
  } catch {
    throw new Error('the path of the file: URL has a bad %-escape')
  }
}
