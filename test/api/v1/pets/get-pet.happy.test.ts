// GET /v1/pets/{petId} (deprecated but still served): 200 with the Pet as created.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness } from '../../../helpers/harness.js'
import { createPet } from '../../../helpers/pets.js'

test('200 with the pet exactly as created, with and without status', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const withStatus = await createPet(h, key, { name: 'Rex', categoryId: 3, status: 'pending' })
  const without = await createPet(h, key, { name: 'Tom', categoryId: 4 })
  for (const pet of [withStatus, without]) {
    const response = await h.app.inject({ url: `/v1/pets/${pet.id}`, headers: bearer(key) })
    assert.equal(response.statusCode, 200)
    assert.match(response.headers['content-type'] as string, /^application\/json/)
    assert.deepEqual(response.json(), pet)
  }
  assert.ok(!('status' in (await h.app.inject({ url: `/v1/pets/${without.id}`, headers: bearer(key) })).json()))
})

test('each pet is found by its own id', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const pets = []
  for (const name of ['A', 'B', 'C']) pets.push(await createPet(h, key, { name, categoryId: 1 }))
  for (const pet of pets.reverse()) {
    const response = await h.app.inject({ url: `/v1/pets/${pet.id}`, headers: bearer(key) })
    assert.equal(response.json().name, pet.name)
  }
})
