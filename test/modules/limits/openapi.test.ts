// The OpenAPI document declares the limits: a 429 with Retry-After on every operation, and the five limit
// headers on every response of every operation. The operator (admin) endpoints are not in it.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startHarness } from '../../helpers/harness.js'

type Doc = Record<string, any>
const LIMIT_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
]

async function documentOf(t: Parameters<typeof startHarness>[0]): Promise<Doc> {
  const h = await startHarness(t)
  const res = await h.app.inject({ url: '/v1/openapi.json' })
  assert.equal(res.statusCode, 200, res.body)
  return res.json() as Doc
}

function operations(doc: Doc): Array<[string, Doc]> {
  const ops = Object.entries(doc.paths as Doc).flatMap(([path, item]) =>
    Object.entries(item as Doc)
      .filter(([method]) => ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'].includes(method))
      .map(([method, op]): [string, Doc] => [`${method.toUpperCase()} ${path}`, op as Doc]),
  )
  assert.ok(ops.length >= 3, `operations: ${ops.map(([name]) => name).join(', ')}`)
  return ops
}

/** Header names of a response, lower-cased (header names are case-insensitive). */
const headerNames = (response: Doc) => Object.keys(response.headers ?? {}).map((name) => name.toLowerCase())

test('every operation declares a 429 with the Error body and an integer Retry-After ≥ 1', async (t) => {
  const doc = await documentOf(t)
  for (const [name, op] of operations(doc)) {
    const tooMany = op.responses?.['429']
    assert.ok(tooMany, `${name} declares no 429`)
    assert.equal(tooMany.content?.['application/json']?.schema?.$ref, '#/components/schemas/Error', name)
    const retryAfter = Object.entries(tooMany.headers ?? {}).find(
      ([header]) => header.toLowerCase() === 'retry-after',
    )?.[1] as Doc | undefined
    assert.ok(retryAfter, `${name}: 429 without Retry-After`)
    assert.equal(retryAfter.schema.type, 'integer', name)
    assert.equal(retryAfter.schema.minimum, 1, name)
  }
})

test('every response of every operation declares the X-RateLimit-* and IETF RateLimit headers', async (t) => {
  const doc = await documentOf(t)
  for (const [name, op] of operations(doc)) {
    for (const [status, response] of Object.entries(op.responses as Doc)) {
      const names = headerNames(response as Doc)
      for (const header of LIMIT_HEADERS)
        assert.ok(names.includes(header.toLowerCase()), `${name} ${status} does not declare ${header}`)
      for (const header of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
        assert.equal((response as Doc).headers[header].schema.type, 'integer', `${name} ${status} ${header}`)
      }
    }
  }
})

test('the operator endpoints behind `accounts usage` and `keys unban` are not part of the document', async (t) => {
  const doc = await documentOf(t)
  for (const path of Object.keys(doc.paths)) assert.doesNotMatch(path, /admin|usage|unban/, path)
})
