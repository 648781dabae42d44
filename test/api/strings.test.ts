// The documents say what the validator does with strings: every string a request carries in its path, query or
// JSON body (found by walking both OpenAPI documents, so strings added later are covered) has a pattern that
// refuses U+0000 and a description that names both rules (no U+0000, no unpaired surrogate); and each of them,
// sent with U+0000 (and, in a body, with a lone surrogate), is a 400 with the Error body, a code its operation
// documents and a message naming the field. Enumerated strings are the exception: their values say it already.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Ajv } from 'ajv'
import { isSafeNumber, parse, stringify } from 'lossless-json'
import { operationsOf } from '../../src/api/contract/openapi-contract.js'
import { bearer, errorOf } from '../helpers/harness.js'
import { startMessagesHarness } from '../helpers/messages-harness.js'

type Doc = Record<string, any>
type App = {
  inject: (
    o: Record<string, unknown>,
  ) => Promise<{ statusCode: number; headers: Record<string, unknown>; body: string; json: () => any }>
}

interface StringField {
  operation: string
  method: string
  path: string
  in: 'path' | 'query' | 'body'
  name: string
  schema: Doc
  description: string
  op: Doc
}

const resolve = (doc: Doc, schema: Doc): Doc =>
  typeof schema.$ref === 'string' ? doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema

/** Every string of a request of the document: path and query parameters, and the fields of JSON bodies. */
function stringFields(doc: Doc): StringField[] {
  const fields: StringField[] = []
  for (const { path, method, op } of operationsOf(doc)) {
    const at = { operation: op.operationId as string, method: method.toUpperCase(), path, op }
    for (const parameter of (op.parameters ?? []) as Doc[]) {
      const schema = resolve(doc, parameter.schema ?? {})
      if (schema.type === 'string' && (parameter.in === 'path' || parameter.in === 'query')) {
        fields.push({
          ...at,
          in: parameter.in,
          name: parameter.name,
          schema,
          description: parameter.description ?? schema.description ?? '',
        })
      }
    }
    const body = op.requestBody?.content?.['application/json']?.schema
    if (!body) continue
    for (const [name, property] of Object.entries((resolve(doc, body).properties ?? {}) as Doc)) {
      const schema = { ...resolve(doc, property), ...(property.$ref ? {} : property) }
      if (schema.type === 'string')
        fields.push({ ...at, in: 'body', name, schema, description: schema.description ?? '' })
    }
  }
  return fields
}

/** A valid value of a schema, for the fields beside the one under test: the body's example, or made up. */
function sampleOf(doc: Doc, schema: Doc): unknown {
  const s = resolve(doc, schema)
  if (s.enum) return s.enum[0]
  if (s.type === 'integer') return s.minimum ?? 1
  if (s.type === 'boolean') return false
  if (s.type === 'string') return s.format === 'date-time' ? '2027-01-01T00:00:00Z' : 'Rex'
  if (s.type === 'array') return Array.from({ length: s.minItems ?? 0 }, () => sampleOf(doc, s.items))
  if (s.type === 'object')
    return Object.fromEntries(((s.required ?? []) as string[]).map((name) => [name, sampleOf(doc, s.properties[name])]))
  throw new Error(`no sample for ${JSON.stringify(s)}`)
}

/** Parsed with its int64 examples exact (bigint), as the contract test reads it. */
async function documentOf(app: App, url: string): Promise<Doc> {
  return parse((await app.inject({ url })).body, null, (n) => (isSafeNumber(n) ? Number(n) : BigInt(n))) as Doc
}

async function setup(t: Parameters<typeof startMessagesHarness>[0]) {
  const h = await startMessagesHarness(t, { pets: true })
  const { key } = await h.newAccount({ plan: 'business' })
  const listeners = [
    { app: h.pets! as App, doc: await documentOf(h.pets!, '/v1/openapi.json') },
    { app: h.app as App, doc: await documentOf(h.app, '/openapi.json') },
  ]
  return { key, listeners }
}

test(
  'every free-text string of a request has a pattern ' + 'refusing U+0000 and a description naming both rules',
  async (t) => {
    const { listeners } = await setup(t)
    // The app's Ajv mode: its defaults, `unicodeRegExp` on (patterns compiled with the `u` flag).
    const ajv = new Ajv({ strict: false })
    const names: string[] = []
    for (const { doc } of listeners) {
      for (const field of stringFields(doc)) {
        const where = `${field.operation} ${field.in} ${field.name}`
        names.push(field.name)
        if (field.schema.enum) {
          assert.ok(
            field.schema.enum.every(
              (v: string) => !v.includes('\0') && (v as string & { isWellFormed(): boolean }).isWellFormed(),
            ),
            where,
          )
          continue
        }
        const pattern = field.schema.pattern as string
        assert.equal(typeof pattern, 'string', `${where}: no pattern`)
        assert.doesNotThrow(() => new RegExp(pattern, 'u'), where)
        assert.doesNotThrow(() => new RegExp(pattern), where)
        const valid = ajv.compile({ type: 'string', pattern })
        const sample = field.schema.format === 'date-time' ? '2027-01-01T00:00:00Z' : 'Rex'
        assert.equal(valid(sample), true, `${where}: refuses ${sample}`)
        assert.equal(valid(`${sample}\u0000`), false, `${where}: accepts U+0000`)
        assert.equal(valid('\u0000'), false, `${where}: accepts U+0000 alone`)
        assert.match(field.description, /U\+0000/, `${where}: description`)
        assert.match(field.description, /unpaired surrogate/, `${where}: description`)
      }
    }
    // The walk finds what it should (a guard for the walk itself, not the list of what is checked).
    for (const name of ['name', 'cursor', 'shipDate', 'message', 'id', 'status'])
      assert.ok(names.includes(name), `${name} not found in ${names.join(', ')}`)
  },
)

test(
  'each such string with U+0000 (and in a body, ' +
    'a lone surrogate) is a 400 with a documented code naming the field',
  async (t) => {
    const { key, listeners } = await setup(t)
    let sent = 0
    for (const { app, doc } of listeners) {
      const base = new URL(doc.servers[0].url).pathname.replace(/\/$/, '')
      for (const field of stringFields(doc).filter((f) => !f.schema.enum)) {
        const documented = Object.keys(field.op.responses['400']?.content?.['application/json']?.examples ?? {})
        const media = field.op.requestBody?.content?.['application/json']
        const example = (media?.example ?? (media ? sampleOf(doc, media.schema) : undefined)) as Doc | undefined
        const values = field.in === 'body' ? ['R\\u0000x', 'Rex\\ud800'] : ['R%00x']
        for (const value of values) {
          const where = `${field.operation} ${field.in} ${field.name} = ${value}`
          const path = field.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
            field.in === 'path' && name === field.name ? value : '1',
          )
          const query = field.in === 'query' ? `?${field.name}=${value}` : ''
          // The JSON text written by hand around the value: its escapes are sent as written. An operation with a
          // body gets a valid one when the field under test is in its path.
          const payload =
            field.in === 'body'
              ? stringify({ ...example, [field.name]: '@@' })!.replace('"@@"', `"${value}"`)
              : example === undefined
                ? undefined
                : stringify(example)
          const response = await app.inject({
            method: field.method,
            url: base + path + query,
            headers: { ...bearer(key), ...(payload ? { 'content-type': 'application/json' } : {}) },
            ...(payload ? { payload } : {}),
          })
          const error = errorOf(response)
          assert.equal(response.statusCode, 400, `${where}: ${response.body}`)
          assert.ok(
            documented.includes(error.code),
            `${where}: ${error.code} is not among the documented ${documented.join(', ')}`,
          )
          assert.equal(error.code, field.in === 'body' ? 'invalid_body' : 'invalid_parameter', where)
          assert.ok(error.message.includes(`'${field.name}'`), `${where}: ${error.message}`)
          assert.match(error.message, /must not contain U\+0000 or an unpaired surrogate/, where)
          sent++
        }
      }
    }
    assert.ok(sent >= 8, `${sent} requests`)
  },
)
