// Every non-2xx response is `{code, message, status}` as JSON: unknown paths, wrong methods, unreadable
// URLs and unexpected failures alike; Fastify's own error shape never reaches a client.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { bearer, startHarness } from '../helpers/harness.js'
import { expectError, injectSender } from '../helpers/http.js'
import { createPet } from '../helpers/pets.js'

// `/` and `/v1` are the index (test/api/index.test.ts).
test('an unknown path is a 404 not_found Error, with or without a key', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const send = injectSender(h)
  for (const url of ['/nope', '/v1/', '/v1/nope', '/v2/pets', '/v1/pets/1/extra', '/docs/nonexistent']) {
    for (const headers of [{}, bearer(key)]) {
      const response = await send({ url, headers })
      expectError(response, 404, 'not_found')
      assert.equal(response.headers['www-authenticate'], undefined, url)
    }
  }
})

test('a wrong method on /v1/pets is a 405 method_not_allowed with Allow: GET, HEAD, POST', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  for (const method of ['DELETE', 'PUT', 'PATCH', 'OPTIONS']) {
    for (const headers of [{}, bearer(key)]) {
      const response = await injectSender(h)({ method, url: '/v1/pets', headers })
      expectError(response, 405, 'method_not_allowed', method)
      assert.equal(response.headers.allow, 'GET, HEAD, POST')
    }
  }
})

test('a wrong method on /v1/pets/{petId} is a 405 with Allow: GET, HEAD', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const pet = await createPet(h, key, { name: 'Rex', categoryId: 1 })
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
    const response = await injectSender(h)({
      method,
      url: `/v1/pets/${pet.id}`,
      headers: bearer(key),
      body: { name: 'Tom', categoryId: 1 },
    })
    expectError(response, 405, 'method_not_allowed')
    assert.equal(response.headers.allow, 'GET, HEAD')
  }
  const still = await h.app.inject({ url: `/v1/pets/${pet.id}`, headers: bearer(key) })
  assert.equal(still.json().name, 'Rex', 'the pet was not changed')
})

test('a URL that cannot be decoded is a 400 bad_request Error', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const response = await injectSender(h)({ url: '/v1/pets/%E0%A4%A', headers: bearer(key) })
  expectError(response, 400, 'bad_request')
})

test('an unexpected failure is a 500 internal_error that leaks nothing internal', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const pet = await createPet(h, key, { name: 'Rex', categoryId: 1 })
  await sql`drop table pets`.execute(h.handle.db)
  const send = injectSender(h)
  const calls = [
    { url: '/v1/pets', headers: bearer(key) },
    { url: '/v1/pets?limit=1&status=sold', headers: bearer(key) },
    { method: 'POST', url: '/v1/pets', headers: bearer(key), body: { name: 'Tom', categoryId: 2 } },
    { url: `/v1/pets/${pet.id}`, headers: bearer(key) },
  ]
  for (const call of calls) {
    const response = await send(call)
    const body = expectError(response, 500, 'internal_error')
    assert.doesNotMatch(
      response.body,
      /sqlite|sql|table|select|insert|pets_|account_id|stack|at .*\.ts|\/work\//i,
      response.body,
    )
    assert.ok(response.headers['x-request-id'], 'a 500 carries the request id to quote')
    assert.ok(body.message.length < 200)
  }
})

test('validation, parse, 401, 404, 405 and 413 errors are all exactly {code, message, status}', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const send = injectSender(h)
  const cases: [Parameters<typeof send>[0], number][] = [
    [{ url: '/v1/pets?limit=0', headers: bearer(key) }, 400],
    [
      { method: 'POST', url: '/v1/pets', headers: { ...bearer(key), 'content-type': 'application/json' }, body: '{' },
      400,
    ],
    [{ method: 'POST', url: '/v1/pets', headers: bearer(key), body: { name: '' } }, 400],
    [{ url: '/v1/pets' }, 401],
    [{ url: '/v1/pets/99', headers: bearer(key) }, 404],
    [{ url: '/v1/missing' }, 404],
    [{ method: 'DELETE', url: '/v1/pets' }, 405],
    [
      {
        method: 'POST',
        url: '/v1/pets',
        headers: { ...bearer(key), 'content-type': 'application/json' },
        body: 'x'.repeat(17_000),
      },
      413,
    ],
  ]
  for (const [request, status] of cases) {
    const response = await send(request)
    assert.equal(response.statusCode, status, `${request.method ?? 'GET'} ${request.url}: ${response.body}`)
    const body = JSON.parse(response.body) as Record<string, unknown>
    assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'status'])
    assert.equal(body.status, status)
    assert.equal(typeof body.code, 'string')
    assert.match(response.headers['content-type'] ?? '', /^application\/json/)
    for (const fastifyKey of ['error', 'statusCode']) assert.ok(!(fastifyKey in body), `Fastify's ${fastifyKey} leaked`)
  }
})
