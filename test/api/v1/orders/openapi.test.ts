// The store area in the OpenAPI document: a valid OpenAPI 3.1 document where exactly the four store operations
// carry `x-stability: experimental`, under the `store` tag whose description says what experimental promises; every
// status they answer is documented; the docs page shows the marker.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import { startHarness } from '../../../helpers/harness.js'

type Doc = Record<string, any>
const ERROR_REF = '#/components/schemas/Error'
const STORE_OPERATIONS = ['cancelOrder', 'getOrder', 'listOrders', 'placeOrder']

async function documentOf(t: Parameters<typeof startHarness>[0]): Promise<Doc> {
  const h = await startHarness(t)
  const res = await h.app.inject({ url: '/v1/openapi.json' })
  assert.equal(res.statusCode, 200, res.body)
  return res.json() as Doc
}

function operations(doc: Doc): Map<string, { path: string; method: string; op: Doc }> {
  const ops = new Map<string, { path: string; method: string; op: Doc }>()
  for (const [path, item] of Object.entries(doc.paths as Doc)) {
    for (const [method, op] of Object.entries(item as Doc)) {
      if (['get', 'put', 'post', 'delete', 'patch'].includes(method))
        ops.set((op as Doc).operationId, { path, method, op: op as Doc })
    }
  }
  return ops
}

test('the document with the store is a valid OpenAPI 3.1 document', async (t) => {
  const doc = await documentOf(t)
  const validator = new Validator()
  const result = await validator.validate(doc)
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2))
  assert.equal(validator.version, '3.1')
})

test(
  'exactly the four store operations carry x-stability: ' + 'experimental and the store tag; no other operation does',
  async (t) => {
    const ops = operations(await documentOf(t))
    const marked = [...ops]
      .filter(([, { op }]) => 'x-stability' in op)
      .map(([id]) => id)
      .sort()
    assert.deepEqual(marked, STORE_OPERATIONS)
    for (const id of STORE_OPERATIONS) {
      const { op } = ops.get(id)!
      assert.equal(op['x-stability'], 'experimental', id)
      assert.deepEqual(op.tags, ['store'], id)
      assert.ok(!op.deprecated, id)
    }
    for (const [id, { op }] of ops) if (!STORE_OPERATIONS.includes(id)) assert.ok(!op.tags?.includes('store'), id)
    const at = (id: string) => `${ops.get(id)!.method.toUpperCase()} ${ops.get(id)!.path}`
    assert.deepEqual(STORE_OPERATIONS.map(at), [
      'DELETE /store/orders/{orderId}',
      'GET /store/orders/{orderId}',
      'GET /store/orders',
      'POST /store/orders',
    ])
  },
)

test('the store tag says experimental operations may change or disappear without the deprecation period', async (t) => {
  const doc = await documentOf(t)
  const store = (doc.tags as Doc[]).find((tag) => tag.name === 'store')
  assert.ok(store, JSON.stringify(doc.tags))
  assert.match(store.description, /experimental/i)
  assert.match(store.description, /change or disappear/)
  assert.match(store.description, /without the deprecation period/)
})

test(
  'every status is documented, errors as the Error schema; ' + '201 has Location, 204 no body, orderId is any int64',
  async (t) => {
    const doc = await documentOf(t)
    const ops = operations(doc)
    const expected: Record<string, string[]> = {
      listOrders: ['200', '400', '401', '403', '429', '500', '503'],
      placeOrder: ['201', '400', '401', '403', '409', '413', '415', '422', '429', '500', '503'],
      getOrder: ['200', '400', '401', '403', '404', '429', '500', '503'],
      cancelOrder: ['204', '400', '401', '403', '404', '429', '500', '503'],
    }
    for (const [id, statuses] of Object.entries(expected)) {
      const { op } = ops.get(id)!
      assert.deepEqual(Object.keys(op.responses).sort(), statuses, id)
      for (const status of statuses) {
        const response = op.responses[status]
        assert.ok(response.headers?.['X-RateLimit-Remaining'], `${id} ${status}: the limit headers`)
        if (!status.startsWith('2'))
          assert.equal(response.content?.['application/json']?.schema?.$ref, ERROR_REF, `${id} ${status}`)
      }
    }
    assert.ok(ops.get('placeOrder')!.op.responses['201'].headers.Location)
    assert.equal(
      ops.get('placeOrder')!.op.responses['201'].content['application/json'].schema.$ref,
      '#/components/schemas/Order',
    )
    assert.equal(ops.get('cancelOrder')!.op.responses['204'].content, undefined)
    assert.equal(
      ops.get('listOrders')!.op.responses['200'].content['application/json'].schema.$ref,
      '#/components/schemas/Orders',
    )
    for (const id of ['getOrder', 'cancelOrder']) {
      const param = ops.get(id)!.op.parameters.find((p: Doc) => p.name === 'orderId')
      assert.deepEqual(
        [param.in, param.required, param.schema.type, param.schema.format, param.schema.minimum],
        ['path', true, 'integer', 'int64', undefined],
        id,
      )
    }
    const query = Object.fromEntries(ops.get('listOrders')!.op.parameters.map((p: Doc) => [p.name, p.schema]))
    assert.deepEqual(Object.keys(query).sort(), ['cursor', 'limit', 'status'])
    assert.deepEqual([query.limit.minimum, query.limit.maximum, query.limit.default], [1, 100, 20])
    assert.ok(ops.get('placeOrder')!.op.parameters.some((p: Doc) => p.in === 'header' && p.name === 'idempotency-key'))
  },
)

test(
  'the Order schemas: the Order, the NewOrder body ' + '(petId required, no extra fields) and the statuses',
  async (t) => {
    const { components } = await documentOf(t)
    const order = components.schemas.Order
    assert.deepEqual(Object.keys(order.properties).sort(), [
      'complete',
      'createdAt',
      'id',
      'petId',
      'quantity',
      'shipDate',
      'status',
    ])
    assert.deepEqual([...order.required].sort(), ['complete', 'createdAt', 'id', 'petId', 'quantity', 'status'])
    assert.deepEqual([order.properties.id.format, order.properties.petId.format], ['int64', 'int64'])
    const body = components.schemas.NewOrder
    assert.deepEqual(body.required, ['petId'])
    assert.equal(body.additionalProperties, false)
    assert.deepEqual(
      [body.properties.quantity.minimum, body.properties.quantity.maximum, body.properties.quantity.default],
      [1, 1000, 1],
    )
    assert.equal(body.properties.shipDate.format, 'date-time')
    assert.deepEqual(components.schemas.OrderStatus.enum, ['placed', 'approved', 'delivered'])
  },
)

test('the docs page shows operation extensions, so the experimental marker is visible', async (t) => {
  const h = await startHarness(t, { listen: true })
  const page = await (await fetch(`${h.baseUrl}/docs`)).text()
  const initializer = [...page.matchAll(/\bsrc\s*=\s*["']([^"']*initializer[^"']*)["']/gi)].map((m) => m[1]!)[0]
  assert.ok(initializer, page)
  const script = await (await fetch(new URL(initializer, `${h.baseUrl}/docs`))).text()
  assert.match(script, /"showExtensions":\s*true/)
})
