// GET /v1/openapi.json: a valid OpenAPI 3.1 document that says what the spec says. /docs: served from our own files.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import { startHarness } from '../helpers/harness.js'

type Doc = Record<string, any>
const ERROR_REF = '#/components/schemas/Error'

async function documentOf(t: Parameters<typeof startHarness>[0], env: Record<string, string> = {}): Promise<Doc> {
  const h = await startHarness(t, { env })
  const res = await h.app.inject({ url: '/v1/openapi.json' })
  assert.equal(res.statusCode, 200, res.body)
  assert.match(String(res.headers['content-type']), /^application\/json/)
  return res.json() as Doc
}

function operations(doc: Doc): Array<[string, string, Doc]> {
  return Object.entries(doc.paths as Doc).flatMap(([path, item]) =>
    Object.entries(item as Doc)
      .filter(([method]) => ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'].includes(method))
      .map(([method, op]): [string, string, Doc] => [path, method, op as Doc]),
  )
}

test('the document is served without a key and is a valid OpenAPI 3.1 document', async (t) => {
  const doc = await documentOf(t)
  const validator = new Validator()
  const result = await validator.validate(doc)
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2))
  assert.equal(validator.version, '3.1')
  assert.match(doc.openapi, /^3\.1\.\d+$/)
  assert.equal(doc.info.version, '1.0.0')
})

test('servers list the configured production and staging base URLs, each ending in /v1', async (t) => {
  const defaults = await documentOf(t)
  const urls = defaults.servers.map((s: { url: string }) => s.url)
  assert.ok(urls.includes('https://api.petstore.example/v1'), urls.join(' '))
  assert.ok(urls.includes('https://staging.api.petstore.example/v1'), urls.join(' '))
  for (const url of urls) assert.match(url, /\/v1$/)

  const custom = await documentOf(t, {
    PETSTORE_PRODUCTION_URL: 'https://pets.example.com/v1',
    PETSTORE_STAGING_URL: 'https://pets-staging.example.com/v1',
  })
  const customUrls = custom.servers.map((s: { url: string }) => s.url)
  assert.ok(customUrls.includes('https://pets.example.com/v1'), customUrls.join(' '))
  assert.ok(customUrls.includes('https://pets-staging.example.com/v1'), customUrls.join(' '))
  assert.ok(!customUrls.includes('https://api.petstore.example/v1'))
})

test(
  'one global bearer scheme secures every operation, ' +
    'each naming the scope it needs (issue 26) in its security and description',
  async (t) => {
    const doc = await documentOf(t)
    const schemes = Object.entries(doc.components.securitySchemes as Doc)
    assert.equal(schemes.length, 1)
    const [name, scheme] = schemes[0]!
    assert.equal(scheme.type, 'http')
    assert.equal(scheme.scheme, 'bearer')
    assert.deepEqual(doc.security, [{ [name]: [] }])
    const needs: Record<string, string> = {
      listPets: 'pets:read',
      getPet: 'pets:read',
      createPet: 'pets:write',
      listOrders: 'orders:read',
      getOrder: 'orders:read',
      placeOrder: 'orders:write',
      cancelOrder: 'orders:write',
      listWebhookEndpoints: 'webhooks:read',
      getWebhookEndpoint: 'webhooks:read',
      createWebhookEndpoint: 'webhooks:write',
      updateWebhookEndpoint: 'webhooks:write',
      deleteWebhookEndpoint: 'webhooks:write',
      rotateWebhookEndpointSecret: 'webhooks:write',
      sendWebhookTestEvent: 'webhooks:write',
      listEvents: 'webhooks:read',
      getEvent: 'webhooks:read',
      listWebhookAttempts: 'webhooks:read',
      resendWebhookEvent: 'webhooks:write',
      recoverWebhookEvents: 'webhooks:write',
    }
    for (const [path, method, op] of operations(doc)) {
      const scope = needs[op.operationId]
      assert.ok(scope, `${method} ${path}: no scope expected for ${op.operationId}`)
      assert.deepEqual(op.security, [{ [name]: [scope] }], `${method} ${path} security`)
      assert.ok(op.description.includes(`\`${scope}\` scope`), `${method} ${path} description names ${scope}`)
      assert.ok(op.responses['403'].description.includes('insufficient_scope'), `${method} ${path} 403`)
      assert.deepEqual(Object.keys(op.responses['403'].content['application/json'].examples).sort(), [
        'account_suspended',
        'insufficient_scope',
      ])
    }
  },
)

test(
  'paths are relative to the /v1 servers, with the spec operation ids; ' +
    'getPet is deprecated; the store has its own (test/api/v1/orders/openapi.test.ts)',
  async (t) => {
    const doc = await documentOf(t)
    assert.deepEqual(Object.keys(doc.paths).sort(), [
      '/events',
      '/events/{eventId}',
      '/pets',
      '/pets/{petId}',
      '/store/orders',
      '/store/orders/{orderId}',
      '/webhook-endpoints',
      '/webhook-endpoints/{endpointId}',
      '/webhook-endpoints/{endpointId}/attempts',
      '/webhook-endpoints/{endpointId}/recover',
      '/webhook-endpoints/{endpointId}/resend',
      '/webhook-endpoints/{endpointId}/rotate-secret',
      '/webhook-endpoints/{endpointId}/test',
    ])
    assert.equal(doc.paths['/pets'].get.operationId, 'listPets')
    assert.equal(doc.paths['/pets'].post.operationId, 'createPet')
    assert.equal(doc.paths['/pets/{petId}'].get.operationId, 'getPet')
    assert.equal(doc.paths['/pets/{petId}'].get.deprecated, true)
    assert.ok(!doc.paths['/pets'].get.deprecated && !doc.paths['/pets'].post.deprecated)
    const petId = doc.paths['/pets/{petId}'].get.parameters.find((p: Doc) => p.name === 'petId')
    assert.deepEqual(
      [petId.in, petId.required, petId.schema.type, petId.schema.format],
      ['path', true, 'integer', 'int64'],
    )
    assert.equal(petId.schema.minimum, undefined, 'any int64 is a valid petId (0 and negatives are 404s)')
  },
)

test('every non-2xx response of every operation is the Error schema', async (t) => {
  const doc = await documentOf(t)
  const ops = operations(doc)
  assert.equal(ops.length, 19, 'three pet operations, the four of the store, ten of webhooks and two of events')
  for (const [path, method, op] of ops) {
    const statuses = Object.keys(op.responses)
    assert.ok(statuses.includes('401'), `${method} ${path} does not document 401`)
    for (const status of statuses.filter((s) => !s.startsWith('2'))) {
      assert.equal(
        op.responses[status].content?.['application/json']?.schema?.$ref,
        ERROR_REF,
        `${method} ${path} ${status}`,
      )
    }
  }
  assert.ok('404' in doc.paths['/pets/{petId}'].get.responses)
  assert.ok('400' in doc.paths['/pets'].post.responses)
})

test('the limit parameter is 1 to 100, default 20; the Error schema requires code, message and status', async (t) => {
  const doc = await documentOf(t)
  const limit = doc.paths['/pets'].get.parameters.find((p: Doc) => p.name === 'limit')
  assert.equal(limit.in, 'query')
  assert.deepEqual(
    [limit.schema.type, limit.schema.minimum, limit.schema.maximum, limit.schema.default],
    ['integer', 1, 100, 20],
  )
  const error = doc.components.schemas.Error
  assert.deepEqual([...error.required].sort(), ['code', 'message', 'status'])
  assert.deepEqual(
    [error.properties.code.type, error.properties.message.type, error.properties.status.type],
    ['string', 'string', 'integer'],
  )
})

/** Both documents: the pet store's and the messages listener's. */
async function bothDocuments(t: Parameters<typeof startHarness>[0]): Promise<Array<[string, Doc]>> {
  const { startMessagesHarness } = await import('../helpers/messages-harness.js')
  const messages = await startMessagesHarness(t)
  return [
    ['pets', await documentOf(t)],
    ['messages', (await messages.app.inject({ url: '/openapi.json' })).json() as Doc],
  ]
}

const headerOf = (response: Doc, name: string): Doc | undefined =>
  Object.entries((response.headers ?? {}) as Doc).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1] as
    | Doc
    | undefined

test(
  'every response of every operation requires the request id and limit headers; ' +
    'every 429 and 503 requires Retry-After',
  async (t) => {
    for (const [name, doc] of await bothDocuments(t)) {
      for (const [path, method, op] of operations(doc)) {
        assert.ok(op.responses['503'], `${name} ${method} ${path}: no 503`)
        for (const [status, response] of Object.entries(op.responses as Doc)) {
          const where = `${name} ${method} ${path} ${status}`
          for (const header of [
            'X-Request-Id',
            'X-RateLimit-Limit',
            'X-RateLimit-Remaining',
            'X-RateLimit-Reset',
            'RateLimit',
            'RateLimit-Policy',
          ]) {
            assert.equal(headerOf(response, header)?.required, true, `${where}: ${header}`)
          }
          if (status === '429' || status === '503') {
            assert.equal(headerOf(response, 'Retry-After')?.required, true, `${where}: Retry-After`)
            assert.deepEqual(
              [headerOf(response, 'Retry-After')?.schema.type, headerOf(response, 'Retry-After')?.schema.minimum],
              ['integer', 1],
            )
          }
          if (status === '401') assert.equal(headerOf(response, 'WWW-Authenticate')?.required, true, where)
        }
      }
    }
  },
)

test('every response of getPet requires Deprecation, Sunset and Link; the list declares Link', async (t) => {
  const doc = await documentOf(t)
  for (const [status, response] of Object.entries(doc.paths['/pets/{petId}'].get.responses as Doc)) {
    for (const header of ['Deprecation', 'Sunset', 'Link'])
      assert.equal(headerOf(response, header)?.required, true, `getPet ${status} ${header}`)
  }
  assert.ok(headerOf(doc.paths['/pets'].get.responses['200'], 'Link'), 'listPets 200 Link')
  assert.equal(headerOf(doc.paths['/pets'].post.responses['201'], 'Link'), undefined, 'createPet is no list')
})

test('every error response has an example per code it can carry, each with that code and its status', async (t) => {
  const { ERROR_CODES } = await import('../../src/api/contract/errors.js')
  for (const [name, doc] of await bothDocuments(t)) {
    for (const [path, method, op] of operations(doc)) {
      for (const [status, response] of Object.entries(op.responses as Doc)) {
        if (status.startsWith('2')) continue
        const examples = Object.values((response as Doc).content['application/json'].examples ?? {}) as Doc[]
        assert.ok(examples.length > 0, `${name} ${method} ${path} ${status}: no examples`)
        for (const { value } of examples) {
          assert.equal(value.status, Number(status))
          assert.equal(
            ERROR_CODES[value.code as keyof typeof ERROR_CODES]?.status,
            Number(status),
            `${path} ${status}: ${value.code}`,
          )
        }
      }
    }
  }
  const doc = await documentOf(t)
  const codes = (op: Doc, status: string) =>
    Object.values(op.responses[status].content['application/json'].examples as Doc).map((e: Doc) => e.value.code)
  assert.deepEqual(codes(doc.paths['/pets/{petId}'].get, '404'), ['pet_not_found'])
  assert.ok(codes(doc.paths['/pets'].post, '400').includes('invalid_body'))
  assert.ok(codes(doc.paths['/pets'].get, '400').includes('invalid_cursor'))
})

test('Idempotency-Key has its real schema; info has contact and license', async (t) => {
  const doc = await documentOf(t)
  const param = doc.paths['/pets'].post.parameters.find((p: Doc) => p.name.toLowerCase() === 'idempotency-key')
  assert.equal(param.in, 'header')
  const pattern = new RegExp(param.schema.pattern, 'u')
  for (const good of ['abc', '"8e03978e-40d5-43e8-bc93-6894a57f9324"', '"a b"', '"a\\"b"', 'x'.repeat(255)])
    assert.ok(pattern.test(good), good)
  for (const bad of ['', '""', 'a b', 'a"b', 'x'.repeat(256), `"${'x'.repeat(256)}"`, 'é'])
    assert.ok(!pattern.test(bad), bad)
  assert.equal(param.schema.minLength, 1)
  assert.ok(doc.info.contact?.name && (doc.info.contact.url || doc.info.contact.email))
  assert.ok(doc.info.license?.name && (doc.info.license.url || doc.info.license.identifier))
})
