// GET /v1/pets/{petId} is deprecated: every response of it (200, 400, 401, 404) carries Deprecation
// (RFC 9745), Sunset (RFC 8594, from PETSTORE_GETPET_SUNSET) and a Link to its replacement.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness, type Harness } from '../../../helpers/harness.js'
import { assertDeprecationHeaders } from '../../../helpers/deprecation.js'
import { sender } from '../../../helpers/http.js'
import { createPet } from '../../../helpers/pets.js'

async function everyOutcome(h: Harness) {
  const { key } = await h.newAccount()
  const pet = await createPet(h, key, { name: 'Rex', categoryId: 1 })
  const send = sender(h)
  const responses = [
    await send({ url: `/v1/pets/${pet.id}`, headers: bearer(key) }),
    await send({ url: '/v1/pets/abc', headers: bearer(key) }),
    await send({ url: `/v1/pets/${pet.id}` }),
    await send({ url: `/v1/pets/${pet.id}`, headers: bearer('ps_test_unknown') }),
    await send({ url: `/v1/pets/${pet.id + 1000}`, headers: bearer(key) }),
  ]
  assert.deepEqual(
    responses.map((r) => r.statusCode),
    [200, 400, 401, 401, 404],
  )
  return responses
}

test('200, 400, 401 and 404 all carry Deprecation, Sunset and the successor Link', async (t) => {
  const h = await startHarness(t)
  for (const response of await everyOutcome(h)) assertDeprecationHeaders(response)
})

test('the same on a listening server, where the successor Link is absolute on the origin used', async (t) => {
  const h = await startHarness(t, { listen: true })
  for (const response of await everyOutcome(h)) {
    assertDeprecationHeaders(response)
    assert.ok(
      (response.headers.link ?? '').includes(`<${h.baseUrl}/v1/pets>; rel="successor-version"`),
      response.headers.link,
    )
  }
})

test('Deprecation is the configured deprecation instant in epoch seconds, before the sunset', async (t) => {
  const h = await startHarness(t, { env: { PETSTORE_GETPET_DEPRECATED_AT: '2026-01-15T10:00:00Z' } })
  const [ok] = await everyOutcome(h)
  assert.equal(ok!.headers.deprecation, `@${Date.parse('2026-01-15T10:00:00Z') / 1000}`)
  assert.ok(Number(ok!.headers.deprecation!.slice(1)) * 1000 < Date.parse('2030-12-05T00:00:00Z'))
})

test('PETSTORE_GETPET_SUNSET sets the Sunset header', async (t) => {
  const h = await startHarness(t, { env: { PETSTORE_GETPET_SUNSET: '2031-03-04T05:06:07Z' } })
  for (const response of await everyOutcome(h)) assertDeprecationHeaders(response, 'Tue, 04 Mar 2031 05:06:07 GMT')
})

test('the other operations carry no deprecation headers', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const created = await h.app.inject({
    method: 'POST',
    url: '/v1/pets',
    headers: bearer(key),
    payload: { name: 'Rex', categoryId: 1 },
  })
  const listed = await h.app.inject({ url: '/v1/pets', headers: bearer(key) })
  for (const response of [created, listed]) {
    assert.equal(response.headers.deprecation, undefined)
    assert.equal(response.headers.sunset, undefined)
  }
})
