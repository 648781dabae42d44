// The error codes of issue 2, each reached through HTTP, answer with the status the code list documents
// (src/http/errors.ts, which the table of codes in docs/integrators/api.md is written from).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ERROR_CODES } from '../../src/api/contract/errors.js'
import { bearer, startHarness } from '../helpers/harness.js'
import { expectError, injectSender, type HttpRequest } from '../helpers/http.js'
import { createPet } from '../helpers/pets.js'

test('each error code is answered with its documented status and the Error shape', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T00:00:00Z') })
  const { key } = await h.newAccount()
  const pet = await createPet(h, key, { name: 'Rex', categoryId: 1 })
  const auth = bearer(key)
  const json = { ...auth, 'content-type': 'application/json' }
  const triggers: Record<string, HttpRequest> = {
    bad_request: { url: '/v1/pets/%E0%A4%A', headers: auth },
    invalid_parameter: { url: '/v1/pets?limit=101', headers: auth },
    invalid_body: { method: 'POST', url: '/v1/pets', headers: auth, body: { name: 'Rex' } },
    invalid_json: { method: 'POST', url: '/v1/pets', headers: json, body: '{"name":' },
    invalid_content_type: {
      method: 'POST',
      url: '/v1/pets',
      headers: { ...auth, 'content-type': 'text/plain' },
      body: '{}',
    },
    invalid_cursor: { url: '/v1/pets?cursor=abc.def', headers: auth },
    missing_api_key: { url: '/v1/pets' },
    invalid_authorization_header: { url: '/v1/pets', headers: { authorization: 'Basic eDp5' } },
    invalid_api_key: { url: '/v1/pets', headers: bearer('ps_test_nope') },
    not_found: { url: '/v1/nope', headers: auth },
    pet_not_found: { url: `/v1/pets/${pet.id + 1}`, headers: auth },
    method_not_allowed: { method: 'DELETE', url: '/v1/pets', headers: auth },
    payload_too_large: { method: 'POST', url: '/v1/pets', headers: json, body: ' '.repeat(16 * 1024 + 1) },
  }
  const send = injectSender(h)
  for (const [code, request] of Object.entries(triggers)) {
    const documented = ERROR_CODES[code as keyof typeof ERROR_CODES]
    assert.ok(documented, `${code} is in the documented list`)
    expectError(await send(request), documented.status, code)
  }
  h.clock.set(h.config.getPetSunset)
  expectError(
    await send({ url: `/v1/pets/${pet.id}`, headers: auth }),
    ERROR_CODES.operation_sunset.status,
    'operation_sunset',
  )
  assert.equal(ERROR_CODES.operation_sunset.status, 410)
  assert.equal(ERROR_CODES.headers_too_large.status, 431)
  assert.equal(ERROR_CODES.internal_error.status, 500)
})
