// Holds responses to an OpenAPI document: the response's operation (method and path), its status declared,
// every required header present and of its declared type, every header sent declared (beyond HTTP's own), and the
// body valid against the declared schema (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 says). Also the opt-in recorder
// (RECORD_RESPONSES=dir) that writes every injected response of the suite, so the contract test can check them.
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import type { FastifyInstance } from 'fastify'

type Doc = Record<string, any>

export interface RecordedResponse {
  /** Which document: `pets` or `messages`. */
  listener: string
  method: string
  /** Path and query as sent. */
  url: string
  status: number
  headers: Record<string, unknown>
  body: string
}

/** Headers of HTTP itself, CORS and caching, which an OpenAPI document does not list. */
const HTTP_HEADERS =
  /^(content-type|content-length|date|connection|keep-alive|transfer-encoding|vary|cache-control|access-control-.*)$/

function decodable(path: string): boolean {
  try {
    decodeURIComponent(path)
    return true
  } catch {
    return false
  }
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']

export function createContractChecker(doc: Doc) {
  const base = new URL(doc.servers?.[0]?.url ?? 'http://x/').pathname.replace(/\/$/, '')
  const ajv = new Ajv2020({ strict: false, allErrors: false })
  addFormats.default(ajv)
  // The components, addressable as `contract#/components/schemas/X` (the document's own refs resolve within it).
  ajv.addSchema({ $id: 'contract', components: doc.components ?? {} })
  const rewrite = (schema: unknown) =>
    JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"contract#/components/')) as Doc

  const operations = Object.entries((doc.paths ?? {}) as Doc).flatMap(([path, item]) =>
    Object.entries(item as Doc)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        op: op as Doc,
        pattern: new RegExp(`^${base}${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      })),
  )
  const validators = new Map<string, ReturnType<typeof ajv.compile>>()

  /** The operation a request went to, if it went to one of the document's. */
  function operationOf(method: string, url: string) {
    const path = url.split('?')[0]!
    // A path that cannot be decoded names no operation: it is refused before routing (http/pre-routing.ts).
    if (!decodable(path)) return undefined
    return operations.find(
      (o) => (o.method === method || (method === 'HEAD' && o.method === 'GET')) && o.pattern.test(path),
    )
  }

  /** What is wrong with the response (empty: it keeps the contract); undefined when no operation matches. */
  function check(response: RecordedResponse): string[] | undefined {
    const operation = operationOf(response.method, response.url)
    if (!operation) return undefined
    const where = `${operation.op.operationId ?? `${operation.method} ${operation.path}`} ${response.status}`
    const declared = (operation.op.responses as Doc)[String(response.status)] ?? (operation.op.responses as Doc).default
    if (!declared) return [`${where}: status not declared`]
    const problems: string[] = []
    const sent = new Map(Object.entries(response.headers).map(([name, value]) => [name.toLowerCase(), String(value)]))
    const headers = new Map(
      Object.entries((declared.headers ?? {}) as Doc).map(([name, header]) => [name.toLowerCase(), header as Doc]),
    )
    for (const [name, header] of headers) {
      const value = sent.get(name)
      if (value === undefined) {
        if (header.required) problems.push(`${where}: required header ${name} missing`)
        continue
      }
      if (header.schema?.type === 'integer' && !/^-?\d+$/.test(value))
        problems.push(`${where}: header ${name} is not an integer: ${value}`)
      if (header.schema?.minimum !== undefined && Number(value) < header.schema.minimum)
        problems.push(`${where}: header ${name} below ${header.schema.minimum}`)
    }
    for (const name of sent.keys())
      if (!HTTP_HEADERS.test(name) && !headers.has(name))
        problems.push(`${where}: header ${name} sent but not declared`)

    const content = declared.content as Doc | undefined
    if (response.method === 'HEAD' || response.status === 204) return problems
    if (!content) {
      if (response.body !== '') problems.push(`${where}: a body is sent, none declared`)
      return problems
    }
    const type = (sent.get('content-type') ?? '').split(';')[0]!.trim()
    const media = content[type] as Doc | undefined
    if (!media) return [...problems, `${where}: content type ${type} not declared`]
    const key = `${operation.method} ${operation.path} ${response.status} ${type}`
    let validate = validators.get(key)
    if (!validate) validators.set(key, (validate = ajv.compile(rewrite(media.schema ?? {}))))
    let body: unknown
    try {
      body = JSON.parse(response.body)
    } catch {
      return [...problems, `${where}: body is not JSON`]
    }
    if (!validate(body))
      problems.push(`${where}: body ${response.body.slice(0, 200)} does not match: ${ajv.errorsText(validate.errors)}`)
    return problems
  }

  return { check, operationOf }
}

/** RECORD_RESPONSES=dir: every response of `app.inject` is appended to dir/<pid>.jsonl. */
export function recordResponses(app: FastifyInstance, listener: string): void {
  const dir = process.env.RECORD_RESPONSES
  if (!dir) return
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `${process.pid}.jsonl`)
  const inject = app.inject.bind(app) as (
    options: unknown,
  ) => Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }>
  ;(app as { inject: unknown }).inject = async (options: unknown) => {
    const response = await inject(options)
    const o = (typeof options === 'string' ? { url: options } : (options ?? {})) as {
      method?: string
      url?: string | { pathname?: string }
      path?: string
    }
    const url = typeof o.url === 'string' ? o.url : (o.path ?? o.url?.pathname ?? '/')
    const line: RecordedResponse = {
      listener,
      method: (o.method ?? 'GET').toUpperCase(),
      url,
      status: response.statusCode,
      headers: response.headers,
      body: response.body,
    }
    appendFileSync(file, `${JSON.stringify(line)}\n`)
    return response
  }
}

/** The responses recorded in RECORD_RESPONSES (none when unset). */
export function recordedResponses(): RecordedResponse[] {
  const dir = process.env.RECORD_RESPONSES
  if (!dir || !existsSync(dir)) return []
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as RecordedResponse),
    )
}
