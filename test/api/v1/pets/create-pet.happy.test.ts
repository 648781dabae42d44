// POST /v1/pets: 201 with the Pet and `Location: /v1/pets/{id}`; the pet is stored, readable, listed.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness } from '../../../helpers/harness.js'
import type { PetJson } from '../../../helpers/pets.js'

const post = (
  h: Awaited<ReturnType<typeof startHarness>>,
  key: string,
  body: unknown,
  headers: Record<string, string> = {},
) =>
  h.app.inject({
    method: 'POST',
    url: '/v1/pets',
    headers: { ...bearer(key), 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  })

test('201 with the pet, its new id, and a Location to it', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const response = await post(h, key, { name: 'Rex', categoryId: 7, status: 'available' })
  assert.equal(response.statusCode, 201)
  assert.match(response.headers['content-type'] as string, /^application\/json/)
  const pet = response.json<PetJson>()
  assert.ok(Number.isSafeInteger(pet.id) && pet.id >= 1)
  assert.deepEqual(pet, { id: pet.id, name: 'Rex', categoryId: 7, status: 'available' })
  assert.equal(response.headers.location, `/v1/pets/${pet.id}`)
  const fetched = await h.app.inject({ url: response.headers.location, headers: bearer(key) })
  assert.equal(fetched.statusCode, 200)
  assert.deepEqual(fetched.json(), pet)
})

test('each status value is kept as sent', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  for (const status of ['available', 'pending', 'sold']) {
    const response = await post(h, key, { name: 'Kit', categoryId: 1, status })
    assert.equal(response.statusCode, 201)
    assert.equal(response.json().status, status)
  }
})

test('a pet created without status is returned without a status key, also by get and list', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const created = await post(h, key, { name: 'Rex', categoryId: 1 })
  assert.equal(created.statusCode, 201)
  const pet = created.json<PetJson>()
  assert.deepEqual(Object.keys(pet).sort(), ['categoryId', 'id', 'name'])
  assert.ok(!created.body.includes('status'), created.body)
  const fetched = await h.app.inject({ url: `/v1/pets/${pet.id}`, headers: bearer(key) })
  assert.ok(!('status' in fetched.json()), fetched.body)
  const listed = await h.app.inject({ url: '/v1/pets', headers: bearer(key) })
  assert.ok(!listed.body.includes('status'), listed.body)
  assert.equal((await h.app.inject({ url: '/v1/pets?status=available', headers: bearer(key) })).body, '[]')
})

test('name boundaries: 1 and 100 characters, counted in characters (100 emoji), inner spaces kept', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  for (const name of ['R', 'x'.repeat(100), '🐶'.repeat(100), ' Rex the 2nd ', 'Café Ünïcødé 名前']) {
    const response = await post(h, key, { name, categoryId: 1 })
    assert.equal(response.statusCode, 201, `${name.length} UTF-16 units: ${response.body}`)
    assert.equal(response.json().name, name)
  }
})

test('the Content-Type may carry charset=utf-8 and any letter case', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  for (const type of ['application/json; charset=utf-8', 'Application/JSON', 'application/json;charset=UTF-8']) {
    const response = await post(h, key, { name: 'Rex', categoryId: 1 }, { 'content-type': type })
    assert.equal(response.statusCode, 201, `${type}: ${response.body}`)
  }
})

test('ids are assigned by the service, increasing, never reused from the body', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const first = (await post(h, key, { name: 'A', categoryId: 1 })).json<PetJson>()
  const second = (await post(h, key, { name: 'B', categoryId: 1 })).json<PetJson>()
  assert.ok(second.id > first.id)
  const withId = await post(h, key, { id: first.id, name: 'C', categoryId: 1 })
  assert.equal(withId.statusCode, 400, 'id is not a field a client may send')
})

test('the body may be exactly 16 KiB (padding with white space)', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const body = JSON.stringify({ name: 'Rex', categoryId: 1 }).padEnd(16 * 1024, ' ')
  const response = await h.app.inject({
    method: 'POST',
    url: '/v1/pets',
    headers: { ...bearer(key), 'content-type': 'application/json' },
    payload: body,
  })
  assert.equal(response.statusCode, 201, response.body)
})
