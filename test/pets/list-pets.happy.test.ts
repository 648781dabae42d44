import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness } from '../helpers/harness.js'

test('a new account lists no pets, then the pets it created, ordered by id', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const empty = await h.app.inject({ url: '/v1/pets', headers: bearer(key) })
  assert.equal(empty.statusCode, 200)
  assert.deepEqual(empty.json(), [])
  const ids: number[] = []
  for (const name of ['Rex', 'Tom', 'Kit']) {
    const created = await h.app.inject({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name, categoryId: 1 } })
    assert.equal(created.statusCode, 201)
    ids.push(created.json().id)
  }
  const listed = await h.app.inject({ url: '/v1/pets', headers: bearer(key) })
  assert.deepEqual(listed.json().map((p: { id: number }) => p.id), ids)
  assert.equal(listed.headers.link, undefined)
})
