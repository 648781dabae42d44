// GET /v1/pets/{petId}: an id that is not an int64 is a 400 naming petId; any int64 that names no pet of the account
// (0 and negative ones included: the spec's type is int64) a 404.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness } from '../../../helpers/harness.js'
import { expectError, injectSender } from '../../../helpers/http.js'
import { createPet } from '../../../helpers/pets.js'

test('petId that is not a 64-bit integer: 400 invalid_parameter naming petId', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const bad = [
    'abc',
    '1.5',
    '1e3',
    '0x10',
    '9223372036854775808',
    '99999999999999999999',
    '-9223372036854775809',
    '%20',
    '1%20',
    'true',
    'null',
  ]
  for (const petId of bad) {
    const response = await injectSender(h)({ url: `/v1/pets/${petId}`, headers: bearer(key) })
    assert.equal(response.statusCode, 400, `${petId}: ${response.body}`)
    expectError(response, 400, 'invalid_parameter', "'petId'")
  }
})

test(
  'an int64 that names no pet: 404 pet_not_found, ' +
    'from the smallest int64 to the largest, 0 and negatives included',
  async (t) => {
    const h = await startHarness(t)
    const { key } = await h.newAccount()
    const pet = await createPet(h, key, { name: 'Rex', categoryId: 1 })
    for (const petId of [
      String(pet.id + 1),
      '9007199254740993',
      '9223372036854775807',
      '0',
      '-1',
      `-${pet.id}`,
      '-9223372036854775808',
    ]) {
      const error = expectError(
        await injectSender(h)({ url: `/v1/pets/${petId}`, headers: bearer(key) }),
        404,
        'pet_not_found',
      )
      assert.ok(error.message.includes(petId), `the message names the id exactly: ${error.message}`)
    }
  },
)

test('validation comes after authentication: a bad id without a key is a 401', async (t) => {
  const h = await startHarness(t)
  expectError(await injectSender(h)({ url: '/v1/pets/abc' }), 401, 'missing_api_key')
  expectError(await injectSender(h)({ url: '/v1/pets/1' }), 401, 'missing_api_key')
})
