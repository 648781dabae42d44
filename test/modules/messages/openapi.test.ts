// The messages interface's own OpenAPI document (GET /openapi.json on its listener, no key) and docs (/docs).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import { startMessagesHarness } from '../../helpers/messages-harness.js'

type Doc = Record<string, any>

async function documentOf(
  t: Parameters<typeof startMessagesHarness>[0],
  env: Record<string, string> = {},
): Promise<Doc> {
  const h = await startMessagesHarness(t, { env })
  const response = await h.app.inject({ url: '/openapi.json' })
  assert.equal(response.statusCode, 200, response.body)
  assert.match(String(response.headers['content-type']), /^application\/json/)
  return response.json<Doc>()
}

/** Resolves a local `$ref` (`#/components/schemas/X`) against the document. */
function resolve(doc: Doc, schema: Doc): Doc {
  if (typeof schema.$ref !== 'string') return schema
  return schema.$ref
    .slice(2)
    .split('/')
    .reduce((node: Doc, part: string) => node[part], doc)
}

test('GET /openapi.json needs no key and is a valid OpenAPI 3.1 document', async (t) => {
  const doc = await documentOf(t)
  const validator = new Validator()
  const result = await validator.validate(doc)
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2))
  assert.equal(validator.version, '3.1')
  assert.match(doc.openapi, /^3\.1\.\d+$/)
})

test('it describes the messages interface only, at its own address without a version segment', async (t) => {
  const doc = await documentOf(t, { MESSAGES_PORT: '9181' })
  assert.deepEqual(Object.keys(doc.paths).sort(), ['/messages', '/messages/{id}'])
  const urls = doc.servers.map((s: Doc) => s.url)
  assert.deepEqual(urls, ['http://127.0.0.1:9181'])
  const schemes = Object.values(doc.components.securitySchemes as Doc)
  assert.deepEqual(
    schemes.map((s: Doc) => [s.type, s.scheme]),
    [['http', 'bearer']],
  )
  assert.equal(doc.security.length, 1)
})

test(
  'POST /messages: a JSON NewMessage body, ' + 'a 202 answer whose Message status is queued/delivered/failed',
  async (t) => {
    const doc = await documentOf(t)
    const post = doc.paths['/messages'].post
    assert.ok(post, 'POST /messages is documented')

    const body = resolve(doc, post.requestBody.content['application/json'].schema)
    assert.equal(post.requestBody.required, true)
    assert.deepEqual(body.required, ['message'])
    assert.equal(body.additionalProperties, false)
    assert.deepEqual(
      [body.properties.message.type, body.properties.message.minLength, body.properties.message.maxLength],
      ['string', 1, 4096],
    )

    assert.ok(post.responses['202'], `responses: ${Object.keys(post.responses).join(', ')}`)
    assert.ok(!post.responses['200'] && !post.responses['201'], 'success is 202 only')
    const accepted = post.responses['202']
    assert.ok(accepted.headers?.Location ?? accepted.headers?.location, 'the 202 documents Location')
    const message = resolve(doc, accepted.content['application/json'].schema)
    assert.deepEqual(Object.keys(message.properties).sort(), ['createdAt', 'id', 'message', 'status'])
    assert.deepEqual(message.properties.status.enum, ['queued', 'delivered', 'failed'])
    assert.equal(message.properties.createdAt.format, 'date-time')
    assert.equal(doc.components.schemas.Message.properties.status.enum.length, 3)
  },
)

test('POST /messages documents 400, 401, 413 and 429 with the Error body', async (t) => {
  const doc = await documentOf(t)
  const responses = doc.paths['/messages'].post.responses
  for (const status of ['400', '401', '413', '429']) {
    assert.ok(responses[status], `${status} is documented`)
    const schema = resolve(doc, responses[status].content['application/json'].schema)
    assert.deepEqual([...schema.required].sort(), ['code', 'message', 'status'], status)
  }
  assert.ok(responses['401'].headers?.['WWW-Authenticate'], '401 documents WWW-Authenticate')
})

test('GET /messages/{id}: 200 Message, 404 Error', async (t) => {
  const doc = await documentOf(t)
  const get = doc.paths['/messages/{id}'].get
  assert.ok(get)
  const id = get.parameters.find((p: Doc) => p.name === 'id')
  assert.deepEqual([id.in, id.required, id.schema.type], ['path', true, 'string'])
  assert.deepEqual(resolve(doc, get.responses['200'].content['application/json'].schema).properties.status.enum, [
    'queued',
    'delivered',
    'failed',
  ])
  assert.ok(get.responses['404'])
})

test('GET /docs serves the HTML reference, pointing at its copy of /openapi.json (/docs/json)', async (t) => {
  const h = await startMessagesHarness(t, { listen: true })
  const page = await fetch(`${h.baseUrl}/docs`, { signal: AbortSignal.timeout(10_000) })
  assert.equal(page.status, 200)
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/)
  const html = await page.text()
  assert.match(html, /<html/i)
  const initializer = [...html.matchAll(/\bsrc\s*=\s*["']([^"']+)["']/gi)]
    .map((m) => m[1]!)
    .find((u) => u.includes('initializer'))
  assert.ok(initializer, html)
  const script = await (
    await fetch(new URL(initializer, `${h.baseUrl}/docs`), { signal: AbortSignal.timeout(10_000) })
  ).text()
  assert.match(script, /["']\/docs\/json["']/)
  const forPage = (await (await fetch(`${h.baseUrl}/docs/json`)).json()) as { paths: Record<string, unknown> }
  const document = (await (await fetch(`${h.baseUrl}/openapi.json`)).json()) as typeof forPage
  assert.deepEqual(Object.keys(forPage.paths), Object.keys(document.paths))
})
