import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness } from '../../../helpers/harness.js'
import { idsOf, seedPets, type PetJson } from '../../../helpers/pets.js'

test('a new account lists no pets, then the pets it created, ordered by id', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const empty = await h.app.inject({ url: '/v1/pets', headers: bearer(key) })
  assert.equal(empty.statusCode, 200)
  assert.deepEqual(empty.json(), [])
  const ids: number[] = []
  for (const name of ['Rex', 'Tom', 'Kit']) {
    const created = await h.app.inject({
      method: 'POST',
      url: '/v1/pets',
      headers: bearer(key),
      payload: { name, categoryId: 1 },
    })
    assert.equal(created.statusCode, 201)
    ids.push(created.json().id)
  }
  const listed = await h.app.inject({ url: '/v1/pets', headers: bearer(key) })
  assert.deepEqual(
    listed.json().map((p: { id: number }) => p.id),
    ids,
  )
  assert.equal(listed.headers.link, undefined)
})

test('limit defaults to 20', async (t) => {
  const h = await startHarness(t)
  const { accountId, key } = await h.newAccount()
  const ids = await seedPets(h, accountId, 25)
  const page = await h.app.inject({ url: '/v1/pets', headers: bearer(key) })
  assert.equal(page.statusCode, 200)
  assert.deepEqual(idsOf(page.json<PetJson[]>()), ids.slice(0, 20))
  assert.match(page.headers.link as string, /rel="next"/)
})

test('limit takes every value from 1 to 100', async (t) => {
  const h = await startHarness(t)
  const { accountId, key } = await h.newAccount()
  const ids = await seedPets(h, accountId, 101)
  for (const limit of [1, 2, 19, 21, 50, 99, 100]) {
    const page = await h.app.inject({ url: `/v1/pets?limit=${limit}`, headers: bearer(key) })
    assert.equal(page.statusCode, 200, page.body)
    assert.deepEqual(idsOf(page.json<PetJson[]>()), ids.slice(0, limit), `limit=${limit}`)
  }
})

test('a page that holds everything has no Link, even when it is exactly full', async (t) => {
  const h = await startHarness(t)
  const { accountId, key } = await h.newAccount()
  await seedPets(h, accountId, 5)
  const page = await h.app.inject({ url: '/v1/pets?limit=5', headers: bearer(key) })
  assert.equal(page.json<PetJson[]>().length, 5)
  assert.equal(page.headers.link, undefined)
})

test('status filters to the pets with exactly that status, still in id order', async (t) => {
  const h = await startHarness(t)
  const { accountId, key } = await h.newAccount()
  const statuses = ['available', 'pending', 'sold', undefined] as const
  const ids = await seedPets(h, accountId, 24, (i) => statuses[i % 4])
  for (const [index, status] of statuses.entries()) {
    if (status === undefined) continue
    const page = await h.app.inject({ url: `/v1/pets?status=${status}`, headers: bearer(key) })
    assert.equal(page.statusCode, 200)
    const pets = page.json<PetJson[]>()
    assert.deepEqual(
      idsOf(pets),
      ids.filter((_, i) => i % 4 === index),
    )
    assert.ok(pets.every((p) => p.status === status))
  }
})

test('limit and status combine; the body stays a bare array', async (t) => {
  const h = await startHarness(t)
  const { accountId, key } = await h.newAccount()
  const ids = await seedPets(h, accountId, 10, (i) => (i % 2 ? 'sold' : 'available'))
  const page = await h.app.inject({ url: '/v1/pets?status=sold&limit=3', headers: bearer(key) })
  assert.ok(Array.isArray(page.json()))
  assert.deepEqual(idsOf(page.json<PetJson[]>()), ids.filter((_, i) => i % 2).slice(0, 3))
})
