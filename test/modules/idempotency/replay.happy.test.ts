// Idempotency-Key on POST /v1/pets: the same key with the same body within 24 h replays the first response
// (status, body, Location, id) with `Idempotent-Replayed: true`, and the pet is created only once.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startHarness } from '../../helpers/harness.js'
import { petsOf } from '../../helpers/pets.js'
import { limitHeaders } from '../limits/support.js'
import { keyRows, postPet, REX, roomy } from './support.js'

test(
  'same quoted key and body: the 201 is replayed byte for byte, ' + 'with Idempotent-Replayed: true; one pet exists',
  async (t) => {
    const h = await startHarness(t)
    const { key, accountId } = await h.newAccount(roomy)
    const first = await postPet(h, key, '"8e03978e-40d5-43e8-bc93-6894a57f9324"')
    assert.equal(first.statusCode, 201, first.body)
    assert.equal(first.headers['idempotent-replayed'], undefined, 'the first response is not a replay')
    for (let i = 0; i < 3; i++) {
      const again = await postPet(h, key, '"8e03978e-40d5-43e8-bc93-6894a57f9324"')
      assert.equal(again.statusCode, 201)
      assert.equal(again.body, first.body)
      assert.equal(again.headers.location, first.headers.location)
      assert.equal(again.headers['idempotent-replayed'], 'true')
      assert.match(String(again.headers['content-type']), /^application\/json/)
      limitHeaders(again)
    }
    const pets = await petsOf(h, accountId)
    assert.equal(pets.length, 1)
    assert.equal(String(pets[0]!.id), String(first.json().id))
    assert.equal(first.headers.location, `/v1/pets/${first.json().id}`)
  },
)

test('a bare key is accepted too, and names the same key as its quoted form', async (t) => {
  const h = await startHarness(t)
  const { key, accountId } = await h.newAccount(roomy)
  const first = await postPet(h, key, 'order-42')
  assert.equal(first.statusCode, 201)
  const bare = await postPet(h, key, 'order-42')
  const quoted = await postPet(h, key, '"order-42"')
  for (const again of [bare, quoted]) {
    assert.equal(again.headers['idempotent-replayed'], 'true')
    assert.equal(again.body, first.body)
  }
  assert.equal((await petsOf(h, accountId)).length, 1)
})

test('the same JSON written differently (key order, white space) is the same request', async (t) => {
  const h = await startHarness(t)
  const { key, accountId } = await h.newAccount(roomy)
  const first = await postPet(h, key, '"k1"', '{"name":"Rex","categoryId":7,"status":"available"}')
  const reordered = await postPet(h, key, '"k1"', '{ "status" : "available",\n  "categoryId": 7,\t"name": "Rex" }\n')
  assert.equal(reordered.statusCode, 201)
  assert.equal(reordered.headers['idempotent-replayed'], 'true')
  assert.equal(reordered.body, first.body)
  assert.equal((await petsOf(h, accountId)).length, 1)
})

test('different keys, or no key at all, create different pets', async (t) => {
  const h = await startHarness(t)
  const { key, accountId } = await h.newAccount(roomy)
  const ids = new Set<unknown>()
  for (const idempotencyKey of ['"a"', '"b"', undefined, undefined]) {
    const res = await postPet(h, key, idempotencyKey)
    assert.equal(res.statusCode, 201)
    assert.equal(res.headers['idempotent-replayed'], undefined)
    ids.add(res.json().id)
  }
  assert.equal(ids.size, 4)
  assert.equal((await petsOf(h, accountId)).length, 4)
  assert.deepEqual(
    (await keyRows(h)).map((r) => [r.idempotency_key, r.state]),
    [
      ['a', 'done'],
      ['b', 'done'],
    ],
    'no record without a key',
  )
})

test('keys of 1 and 255 characters, and quoted keys with escapes and spaces, are accepted', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount(roomy)
  for (const idempotencyKey of [
    'x',
    'k'.repeat(255),
    `"${'q'.repeat(255)}"`,
    '"a b"',
    '"say \\"hi\\" \\\\ bye"',
    '~!#$%&*+-.^_`|',
  ]) {
    const res = await postPet(h, key, idempotencyKey)
    assert.equal(res.statusCode, 201, `${idempotencyKey}: ${res.body}`)
    assert.equal((await postPet(h, key, idempotencyKey)).headers['idempotent-replayed'], 'true', idempotencyKey)
  }
  const stored = (await keyRows(h)).map((r) => r.idempotency_key)
  assert.ok(stored.includes('say "hi" \\ bye'), `the quoted string is unescaped: ${JSON.stringify(stored)}`)
  assert.ok(stored.includes('q'.repeat(255)))
})

test('the stored record holds the response: status 201, the body and the Location', async (t) => {
  const h = await startHarness(t)
  const { key, accountId } = await h.newAccount(roomy)
  const res = await postPet(h, key, '"stored"', REX)
  const [row] = await keyRows(h)
  assert.equal(row?.account_id, accountId)
  assert.equal(row?.state, 'done')
  assert.equal(Number(row?.response_status), 201)
  assert.deepEqual(JSON.parse(row!.response_body!), res.json())
  assert.equal(row?.response_location, res.headers.location)
})
