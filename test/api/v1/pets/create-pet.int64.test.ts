// categoryId is an int64 end to end: 9223372036854775807 leaves exactly as it came, in the JSON text of
// the 201, of GET /v1/pets/{id} and of the list (JSON.parse would round it, so the raw text is checked).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness } from '../../../helpers/harness.js'

const INT64_MAX = '9223372036854775807'
const EDGES = ['1', '9007199254740991', '9007199254740992', '9007199254740993', '1234567890123456789', INT64_MAX]

async function create(h: Awaited<ReturnType<typeof startHarness>>, key: string, categoryId: string) {
  const response = await h.app.inject({
    method: 'POST',
    url: '/v1/pets',
    headers: { ...bearer(key), 'content-type': 'application/json' },
    payload: `{"name":"Big","categoryId":${categoryId}}`,
  })
  assert.equal(response.statusCode, 201, response.body)
  return response
}

test('categoryId 9223372036854775807 and 1 come back as the same numbers in the JSON text', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  for (const categoryId of ['1', INT64_MAX]) {
    const response = await create(h, key, categoryId)
    assert.match(response.body, new RegExp(`"categoryId":${categoryId}[,}]`))
    assert.doesNotMatch(response.body, /"categoryId":"/, 'a JSON number, not a string')
  }
})

test('every edge of the int64 range round-trips through create, get and list', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  for (const categoryId of EDGES) {
    const created = await create(h, key, categoryId)
    const id = /"id":(\d+)/.exec(created.body)?.[1]
    assert.ok(id, created.body)
    assert.match(created.body, new RegExp(`"categoryId":${categoryId}[,}]`))
    const fetched = await h.app.inject({ url: `/v1/pets/${id}`, headers: bearer(key) })
    assert.equal(fetched.statusCode, 200)
    assert.equal(fetched.body, created.body, 'GET answers the very same JSON text')
  }
  const listed = await h.app.inject({ url: '/v1/pets', headers: bearer(key) })
  const inList = [...listed.body.matchAll(/"categoryId":(\d+)/g)].map((m) => m[1])
  assert.deepEqual(inList, EDGES)
})

test('the stored value is exact too (read back from the database as a bigint)', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  await create(h, key, INT64_MAX)
  const row = await h.handle.db.selectFrom('pets').select('category_id').executeTakeFirstOrThrow()
  assert.equal(row.category_id, 2n ** 63n - 1n)
})

test('categoryId is decided on the exact decimal value of the number, never on a rounded double', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const post = (categoryId: string) =>
    h.app.inject({
      method: 'POST',
      url: '/v1/pets',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: `{"name":"N","categoryId":${categoryId}}`,
    })
  // Not integers, though 4503599627370496.5 (2^52 + 0.5) and 1e-400 round to integral doubles.
  for (const categoryId of [
    '4503599627370496.5',
    '1.5',
    '9007199254740993.0000001',
    '1e-400',
    '1.0e-1',
    '9223372036854775807.5',
    '1e1000000',
  ]) {
    const response = await post(categoryId)
    assert.equal(response.statusCode, 400, `${categoryId}: ${response.body}`)
    assert.equal(response.json().code, 'invalid_body')
    assert.match(response.json().message, /'categoryId'/)
  }
  // Integers written with a fraction or an exponent are kept exactly.
  const exact: [string, string][] = [
    ['1e18', '1000000000000000000'],
    ['9223372036854775807.0', INT64_MAX],
    ['9.223372036854775807e18', INT64_MAX],
    ['4503599627370497.000', '4503599627370497'],
    ['10.0e-1', '1'],
    ['1E2', '100'],
  ]
  for (const [categoryId, stored] of exact) {
    const response = await post(categoryId)
    assert.equal(response.statusCode, 201, `${categoryId}: ${response.body}`)
    assert.match(response.body, new RegExp(`"categoryId":${stored}[,}]`), categoryId)
  }
  // Out of range however it is written.
  for (const categoryId of ['9223372036854775808.0', '1e19', '0.0', '-1e0'])
    assert.equal((await post(categoryId)).statusCode, 400, categoryId)
  const rows = await h.handle.db.selectFrom('pets').select('category_id').orderBy('id').execute()
  assert.deepEqual(
    rows.map((r) => BigInt(r.category_id)),
    exact.map(([, stored]) => BigInt(stored)),
  )
})
