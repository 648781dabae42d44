// A page's body is built by the database (src/pets/pets-json.ts), a single pet's by the response serializer.
// Whatever a pet holds, the two must say the same thing: same fields, same values (int64 exact), `status` absent
// when the pet has none. Runs on the backend of the pass (SQLite, then PostgreSQL).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parse } from 'lossless-json'
import { bearer, startHarness } from '../../../helpers/harness.js'

const NAMES = [
  'Rex',
  'quote " and backslash \\ and slash /',
  'tab\tnew line\ncarriage return\r',
  'control \u0001\u001f and delete \u007f',
  'unicode: Grüße, 猫, emoji 🐈‍⬛, separators \u2028\u2029',
  '</script><script>alert(1)</script>',
  '{"id":1}',
  ' leading and trailing spaces ',
  'x'.repeat(100),
]

test('every pet of a page reads the same as the same pet alone, field for field', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const statuses = [undefined, 'available', 'pending', 'sold'] as const
  const bodies: string[] = []
  for (const [i, name] of NAMES.entries()) {
    const status = statuses[i % statuses.length]
    const categoryId = i === 0 ? '9223372036854775807' : String(i + 1)
    bodies.push(`{"name":${JSON.stringify(name)},"categoryId":${categoryId}${status ? `,"status":"${status}"` : ''}}`)
  }
  for (const payload of bodies) {
    const created = await h.app.inject({
      method: 'POST',
      url: '/v1/pets',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload,
    })
    assert.equal(created.statusCode, 201, created.body)
  }
  const page = await h.app.inject({ url: '/v1/pets?limit=100', headers: bearer(key) })
  assert.equal(page.statusCode, 200)
  assert.equal(page.headers['content-type'], 'application/json; charset=utf-8')
  const listed = parse(page.body) as { id: { value: string } }[]
  assert.equal(listed.length, NAMES.length)
  for (const [i, pet] of listed.entries()) {
    const alone = await h.app.inject({ url: `/v1/pets/${pet.id.value}`, headers: bearer(key) })
    assert.equal(alone.statusCode, 200, alone.body)
    assert.deepEqual(pet, parse(alone.body), `pet ${i}`)
    assert.deepEqual(
      Object.keys(pet),
      Object.keys(parse(alone.body) as object),
      `pet ${i}: the same fields in the same order`,
    )
    assert.equal((pet as unknown as { name: string }).name, NAMES[i])
  }
  assert.equal((listed[0] as unknown as { categoryId: { value: string } }).categoryId.value, '9223372036854775807')
  assert.equal('status' in listed[0]!, false, 'a pet without a status has no status field')
})

test('an empty page is [], and a page is compact JSON', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const empty = await h.app.inject({ url: '/v1/pets', headers: bearer(key) })
  assert.equal(empty.body, '[]')
  assert.equal(empty.headers['content-type'], 'application/json; charset=utf-8')
  await h.app.inject({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: 'Rex', categoryId: 1 } })
  const one = await h.app.inject({ url: '/v1/pets', headers: bearer(key) })
  assert.match(one.body, /^\[\{"id":\d+,"name":"Rex","categoryId":1\}\]$/, 'the same compact text on both databases')
})
