// X-Request-Id: a well-formed incoming id is echoed, anything else is replaced by a generated one, and
// every response carries one. Runs on a listening server, where the header travels over a real socket.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness } from '../helpers/harness.js'
import { fetchSender } from '../helpers/http.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

async function setup(t: Parameters<typeof startHarness>[0]) {
  const h = await startHarness(t, { listen: true })
  const { key } = await h.newAccount()
  return { h, key, send: fetchSender(h.baseUrl) }
}

test('a well-formed incoming X-Request-Id is echoed', async (t) => {
  const { key, send } = await setup(t)
  for (const id of ['abc-123', 'trace.7f3a:9@svc+1=x_y', 'a'.repeat(128)]) {
    const response = await send({ url: '/v1/pets', headers: { ...bearer(key), 'x-request-id': id } })
    assert.equal(response.statusCode, 200)
    assert.equal(response.headers['x-request-id'], id)
  }
})

test('a malformed X-Request-Id is replaced by a generated one', async (t) => {
  const { key, send } = await setup(t)
  for (const id of ['has spaces', 'a'.repeat(129), 'a'.repeat(200), 'semi;colon', 'quote"d', '<script>']) {
    const response = await send({ url: '/v1/pets', headers: { ...bearer(key), 'x-request-id': id } })
    assert.equal(response.statusCode, 200)
    assert.match(response.headers['x-request-id'] ?? '', UUID, `for incoming ${id}`)
  }
})

test('without an incoming id, each request gets its own generated one', async (t) => {
  const { key, send } = await setup(t)
  const ids = new Set<string>()
  for (let i = 0; i < 5; i++)
    ids.add((await send({ url: '/v1/pets', headers: bearer(key) })).headers['x-request-id'] ?? '')
  assert.equal(ids.size, 5)
  for (const id of ids) assert.match(id, UUID)
})

test('every response carries an X-Request-Id: 2xx, 4xx of every kind and 500', async (t) => {
  const { h, key, send } = await setup(t)
  const created = await send({
    method: 'POST',
    url: '/v1/pets',
    headers: bearer(key),
    body: { name: 'Rex', categoryId: 1 },
  })
  const id = JSON.parse(created.body).id as number
  const requests = [
    { url: '/v1/pets', headers: bearer(key) },
    { url: `/v1/pets/${id}`, headers: bearer(key) },
    { url: '/v1/pets?limit=0', headers: bearer(key) },
    { url: '/v1/pets' },
    { url: '/v1/pets/424242', headers: bearer(key) },
    { url: '/v1/unknown' },
    { method: 'DELETE', url: '/v1/pets' },
    { url: '/v1/pets/%E0%A4%A' },
    { method: 'POST', url: '/v1/pets', headers: bearer(key), body: { name: 'x'.repeat(20_000), categoryId: 1 } },
    { url: '/v1/openapi.json' },
  ]
  const statuses: number[] = [created.statusCode]
  assert.match(created.headers['x-request-id'] ?? '', UUID)
  for (const [i, request] of requests.entries()) {
    for (const incoming of [undefined, `probe-${i}`]) {
      const headers = { ...request.headers, ...(incoming ? { 'x-request-id': incoming } : {}) }
      const response = await send({ ...request, headers })
      statuses.push(response.statusCode)
      if (incoming) assert.equal(response.headers['x-request-id'], incoming, `${request.url} → ${response.statusCode}`)
      else assert.match(response.headers['x-request-id'] ?? '', UUID, `${request.url} → ${response.statusCode}`)
    }
  }
  assert.deepEqual([...new Set(statuses)].sort(), [200, 201, 400, 401, 404, 405, 413])
  await h.handle.db.schema.dropTable('pets').execute()
  const failed = await send({ url: '/v1/pets', headers: { ...bearer(key), 'x-request-id': 'probe-500' } })
  assert.equal(failed.statusCode, 500)
  assert.equal(failed.headers['x-request-id'], 'probe-500')
})
