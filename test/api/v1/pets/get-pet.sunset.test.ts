// From its sunset instant on, GET /v1/pets/{petId} answers 410 operation_sunset (still with its
// deprecation headers); one millisecond before, it still answers. Time comes from the manual clock.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { assertDeprecationHeaders } from '../../../helpers/deprecation.js'
import { bearer, startHarness } from '../../../helpers/harness.js'
import { expectError, injectSender } from '../../../helpers/http.js'
import { createPet } from '../../../helpers/pets.js'

const SUNSET = Date.parse('2030-12-05T00:00:00Z')

test('one millisecond before the sunset it answers 200; at the sunset and after, 410', async (t) => {
  const h = await startHarness(t, { now: SUNSET - 1 })
  const { key } = await h.newAccount()
  const pet = await createPet(h, key, { name: 'Rex', categoryId: 1 })
  const get = () => injectSender(h)({ url: `/v1/pets/${pet.id}`, headers: bearer(key) })
  const before = await get()
  assert.equal(before.statusCode, 200)
  assertDeprecationHeaders(before)
  for (const at of [SUNSET, SUNSET + 1, SUNSET + 365 * 24 * 3600 * 1000]) {
    h.clock.set(at)
    const gone = await get()
    expectError(gone, 410, 'operation_sunset')
    assertDeprecationHeaders(gone)
  }
})

test('after the sunset every id answers 410, and the successor still serves the pets', async (t) => {
  const h = await startHarness(t, { now: new Date('2030-12-05T00:00:00Z') })
  const { key } = await h.newAccount()
  const pet = await createPet(h, key, { name: 'Rex', categoryId: 1 })
  for (const petId of [String(pet.id), '999', 'abc']) {
    const error = expectError(
      await injectSender(h)({ url: `/v1/pets/${petId}`, headers: bearer(key) }),
      410,
      'operation_sunset',
    )
    assert.match(error.message, /\/v1\/pets/, 'the message points to the replacement')
  }
  const listed = await h.app.inject({ url: '/v1/pets', headers: bearer(key) })
  assert.equal(listed.statusCode, 200)
  assert.equal(listed.json()[0].id, pet.id)
})

test('the sunset instant follows PETSTORE_GETPET_SUNSET', async (t) => {
  const sunset = Date.parse('2028-06-01T12:00:00Z')
  const h = await startHarness(t, { env: { PETSTORE_GETPET_SUNSET: '2028-06-01T12:00:00Z' }, now: sunset - 1 })
  const { key } = await h.newAccount()
  const pet = await createPet(h, key, { name: 'Rex', categoryId: 1 })
  assert.equal((await h.app.inject({ url: `/v1/pets/${pet.id}`, headers: bearer(key) })).statusCode, 200)
  h.clock.set(sunset)
  const gone = await injectSender(h)({ url: `/v1/pets/${pet.id}`, headers: bearer(key) })
  expectError(gone, 410, 'operation_sunset')
  assertDeprecationHeaders(gone, 'Thu, 01 Jun 2028 12:00:00 GMT')
})

test('after the sunset a request without a key is still a 401 (authentication comes first)', async (t) => {
  const h = await startHarness(t, { now: SUNSET })
  const response = await injectSender(h)({ url: '/v1/pets/1' })
  expectError(response, 401, 'missing_api_key')
  assertDeprecationHeaders(response)
})

test(
  'PETSTORE_GETPET_SUNSET set alone to a past instant: ' + 'the service starts and GET /v1/pets/{petId} answers 410',
  async (t) => {
    const h = await startHarness(t, { env: { PETSTORE_GETPET_SUNSET: '2020-01-01T00:00:00Z' } })
    const { key } = await h.newAccount()
    const pet = await createPet(h, key, { name: 'Rex', categoryId: 1 })
    const gone = await injectSender(h)({ url: `/v1/pets/${pet.id}`, headers: bearer(key) })
    expectError(gone, 410, 'operation_sunset')
    assertDeprecationHeaders(gone, 'Wed, 01 Jan 2020 00:00:00 GMT')
    // Deprecated no later than removed: the deprecation date defaulted to the sunset.
    assert.equal(gone.headers.deprecation, `@${Date.parse('2020-01-01T00:00:00Z') / 1000}`)
  },
)
