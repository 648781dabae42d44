// What every operation's responses carry, added to the generated OpenAPI document in one place (a transform
// over the whole document), so that each operation, today's and those added later, declares it without
// repeating it: the request id and limit headers on every response, Retry-After on every 429 and 503, a 503
// (every operation needs the database), a 403 account_suspended wherever a key is checked (a 401) and
// insufficient_scope where the operation needs a scope, the deprecation
// headers on every response of a deprecated operation,
// `Link` on list answers, and an example per error code. Route schemas declare only what is theirs.
import { ERROR_CODES, type ErrorCode } from './errors.js'

type Doc = Record<string, any>

const integer = (description: string) => ({ schema: { type: 'integer' }, description })
const text = (description: string) => ({ schema: { type: 'string' }, description })

/** On every response (spec 8.3 and draft-ietf-httpapi-ratelimit-headers), always sent. */
const EVERY_RESPONSE_HEADERS: Record<string, Doc> = {
  'X-Request-Id': text('The request id (yours if well-formed, else generated); quote it when reporting a problem.'),
  'X-RateLimit-Limit': integer('Quota of the window with the fewest requests left (ties: the shorter window).'),
  'X-RateLimit-Remaining': integer('Requests left in that window, this one counted; never below 0.'),
  'X-RateLimit-Reset': integer('When that window resets (for a banned key: when the ban ends), as Unix epoch seconds.'),
  'RateLimit-Policy': text('Every window that applies, e.g. `"minute";q=60;w=60, "day";q=1000;w=86400`.'),
  RateLimit: text('The binding window: `"minute";r=<remaining>;t=<seconds to reset>`.'),
}

/** On every answer when the service's public URL is https (RFC 6797); absent over http. */
const HSTS = text(
  '`max-age=31536000` (with `; includeSubDomains` when HSTS_INCLUDE_SUBDOMAINS=on): sent on every answer when the ' +
    'public URL is https.',
)

const RETRY_AFTER = { schema: { type: 'integer', minimum: 1 }, description: 'Seconds to wait before retrying.' }

/** On every response of a deprecated operation (RFC 9745, RFC 8594, RFC 8288). */
const DEPRECATION_HEADERS: Record<string, Doc> = {
  Deprecation: text('RFC 9745: `@<epoch seconds>` of the deprecation.'),
  Sunset: text('RFC 8594: HTTP-date of the removal.'),
  Link: text('`<…>; rel="successor-version"` (the replacement) and `<…>; rel="deprecation"` (its documentation).'),
}

const NEXT_LINK = {
  ...text('`<URL of the next page>; rel="next"` (RFC 8288), present only when more results exist.'),
  required: false,
}

const SERVICE_UNAVAILABLE = {
  description:
    'The database is unreachable or overloaded for now (`service_unavailable`); retry after `Retry-After` seconds.',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
}

/**
 * Wherever a key is checked (every operation with a 401), a valid key of a suspended account is refused so, and
 * where the operation needs a scope (its `security`), a key without it.
 */
function forbidden(scope: string | undefined): Doc {
  const suspended =
    'The API key is valid but its account is suspended (`account_suspended`): every key of it is refused until the ' +
    'operator of the service reactivates it.'
  const scoped =
    scope === undefined
      ? ''
      : ` Or the key lacks the \`${scope}\` scope this operation needs (\`insufficient_scope\`, with ` +
        `\`WWW-Authenticate: Bearer error="insufficient_scope", scope="${scope}"\`); it is counted against the quota ` +
        `and changes nothing.`
  return {
    description: suspended + scoped,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  }
}

/** The scope an operation's security requirement names (openapi.ts puts it there from the route's config). */
const scopeOf = (op: Doc): string | undefined => op.security?.[0]?.bearerAuth?.[0]

/** Error codes an error response may carry when its route names none: every code of that status. */
const codesOf = (status: number) =>
  (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => ERROR_CODES[code].status === status)

/** The marker route schemas use to name the codes of one error response (see `errorResponse`). */
export const ERROR_CODES_KEY = 'x-error-codes'

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']

export function operationsOf(doc: Doc): Array<{ path: string; method: string; op: Doc }> {
  return Object.entries((doc.paths ?? {}) as Doc).flatMap(([path, item]) =>
    Object.entries(item as Doc)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ path, method, op: op as Doc })),
  )
}

function resolve(doc: Doc, schema: Doc | undefined): Doc | undefined {
  const ref = schema?.$ref
  if (typeof ref !== 'string') return schema
  return doc.components?.schemas?.[ref.replace('#/components/schemas/', '')]
}

/** A list operation answers a JSON array. */
function isList(doc: Doc, op: Doc): boolean {
  return Object.entries(op.responses ?? {}).some(
    ([status, response]) =>
      status.startsWith('2') && resolve(doc, (response as Doc).content?.['application/json']?.schema)?.type === 'array',
  )
}

function withHeaders(response: Doc, headers: Record<string, Doc>, required = true): void {
  response.headers ??= {}
  for (const [name, header] of Object.entries(headers)) {
    const existing = Object.keys(response.headers).find((h) => h.toLowerCase() === name.toLowerCase())
    response.headers[existing ?? name] = { ...header, ...(existing ? response.headers[existing] : {}), required }
  }
}

function errorExamples(media: Doc, status: number): void {
  const codes = (media[ERROR_CODES_KEY] as ErrorCode[] | undefined) ?? codesOf(status)
  delete media[ERROR_CODES_KEY]
  media.examples = Object.fromEntries(
    codes.map((code) => [
      code,
      { summary: code, value: { code, message: ERROR_CODES[code].doc, status: ERROR_CODES[code].status } },
    ]),
  )
}

/** Gives a response whose schema is a component with `examples` that example, so the docs page shows it. */
function componentExample(doc: Doc, media: Doc): void {
  const example = resolve(doc, media.schema)?.examples?.[0]
  if (example !== undefined && media.example === undefined && media.examples === undefined) media.example = example
}

/** Completes the generated document in place (see the top of this file); `examples`: component name → example. */
export function completeDocument(doc: Doc, examples: Record<string, unknown> = {}): Doc {
  for (const [name, example] of Object.entries(examples)) {
    const schema = doc.components?.schemas?.[name]
    if (schema) schema.examples = [example]
  }
  for (const { op } of operationsOf(doc)) {
    op.responses ??= {}
    op.responses['503'] ??= structuredClone(SERVICE_UNAVAILABLE)
    if (op.responses['401'] !== undefined && op.responses['403'] === undefined) {
      // In status order, as the route declared the rest.
      op.responses = Object.fromEntries(
        Object.entries({ ...op.responses, '403': forbidden(scopeOf(op)) }).sort(([a], [b]) => a.localeCompare(b)),
      )
    }
    const list = isList(doc, op)
    for (const [status, response] of Object.entries(op.responses as Record<string, Doc>)) {
      withHeaders(response, EVERY_RESPONSE_HEADERS)
      withHeaders(response, { 'Strict-Transport-Security': HSTS }, false)
      if (status === '429' || status === '503') withHeaders(response, { 'Retry-After': RETRY_AFTER })
      if (op.deprecated === true) withHeaders(response, DEPRECATION_HEADERS)
      else if (list && status.startsWith('2')) withHeaders(response, { Link: NEXT_LINK }, false)
      if (status === '401') withHeaders(response, { 'WWW-Authenticate': text('Bearer challenge (RFC 6750).') })
      // Sent with insufficient_scope (RFC 6750 §3.1), not with account_suspended.
      if (status === '403' && scopeOf(op) !== undefined)
        withHeaders(
          response,
          {
            'WWW-Authenticate': text(
              '`Bearer error="insufficient_scope", scope="<the scope needed>"` (RFC 6750 §3.1), with ' +
                '`insufficient_scope` only.',
            ),
          },
          false,
        )
      const media = response.content?.['application/json']
      if (!media) continue
      if (status.startsWith('2')) componentExample(doc, media)
      else errorExamples(media, Number(status))
    }
    const body = op.requestBody?.content?.['application/json']
    if (body) componentExample(doc, body)
  }
  return doc
}

function hasBigInt(value: unknown): boolean {
  if (typeof value === 'bigint') return true
  if (value !== null && typeof value === 'object') return Object.values(value).some(hasBigInt)
  return false
}

/**
 * The document as the docs page gets it. Swagger UI parses it with JSON.parse, which would show
 * 9223372036854775807 as 9223372036854776000: an example holding a 64-bit integer is given as its JSON text
 * (which Swagger UI shows as is), and schema-level copies of such examples are left out.
 */
export function forDocsPage(doc: Doc, stringify: (value: unknown) => string): Doc {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk)
    if (node === null || typeof node !== 'object') return typeof node === 'bigint' ? String(node) : node
    const out: Doc = {}
    for (const [key, value] of Object.entries(node)) {
      if (key === 'example' && hasBigInt(value)) out[key] = stringify(value)
      else if (key === 'examples' && Array.isArray(value) && hasBigInt(value)) continue
      else if (key === 'value' && hasBigInt(value)) out[key] = stringify(value)
      else out[key] = walk(value)
    }
    return out
  }
  return walk(doc) as Doc
}
