// The OpenAPI document declares Idempotency-Key on the create operations (createPet, placeOrder), their 409 and 422,
// and Idempotent-Replayed.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startHarness } from '../../helpers/harness.js'

type Doc = Record<string, any>

const CREATES = ['createPet', 'placeOrder']

for (const operationId of CREATES)
  test(
    `${operationId} declares the optional Idempotency-Key header, ` +
      `409 and 422 with the Error body, and Idempotent-Replayed`,
    async (t) => {
      const h = await startHarness(t)
      const res = await h.app.inject({ url: '/v1/openapi.json' })
      assert.equal(res.statusCode, 200)
      const doc = res.json() as Doc
      const operation = Object.values(doc.paths as Doc)
        .flatMap((item) => Object.values(item as Doc))
        .find((op) => (op as Doc).operationId === operationId) as Doc | undefined
      assert.ok(operation, `no ${operationId} operation`)
      const params = (operation.parameters ?? []) as Doc[]
      const header = params.find((p) => p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key')
      assert.ok(header, `parameters: ${JSON.stringify(params)}`)
      assert.notEqual(header.required, true)
      assert.equal(header.schema.type, 'string')
      for (const status of ['409', '422']) {
        assert.equal(
          operation.responses[status]?.content?.['application/json']?.schema?.$ref,
          '#/components/schemas/Error',
          status,
        )
      }
      const created = Object.keys(operation.responses['201'].headers ?? {}).map((n) => n.toLowerCase())
      assert.ok(created.includes('idempotent-replayed'), created.join(', '))
    },
  )

test('only the create operations take an Idempotency-Key', async (t) => {
  const h = await startHarness(t)
  const doc = (await h.app.inject({ url: '/v1/openapi.json' })).json() as Doc
  for (const item of Object.values(doc.paths as Doc)) {
    for (const op of Object.values(item as Doc) as Doc[]) {
      if (CREATES.includes(op.operationId)) continue
      const named = ((op.parameters ?? []) as Doc[]).filter((p) => String(p.name).toLowerCase() === 'idempotency-key')
      assert.deepEqual(named, [], String(op.operationId))
    }
  }
})
