// Every API response carries the five limit headers, whatever its status: success, client errors (401 and
// 404 included), 405, 410, 413, 429 and 500. Keyed requests show the account's windows, the others the address's.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { bearer, startHarness } from '../../helpers/harness.js'
import { createPet } from '../../helpers/pets.js'
import { FREE_POLICY, limitHeaders, spend, type Res } from './support.js'

const ADDRESS_POLICY = '"minute";q=60;w=60'

function expectHeaders(res: Res, status: number, policy: string, what: string) {
  assert.equal(res.statusCode, status, `${what}: ${res.body}`)
  const headers = limitHeaders(res)
  assert.equal(headers.policy, policy, what)
  return headers
}

test(
  'keyed requests: 200, 201, 400, 404 pet_not_found, ' + '413 and 429 all carry the account headers, counting down',
  async (t) => {
    const h = await startHarness(t, { now: new Date('2027-01-01T00:00:30Z') })
    const { key } = await h.newAccount()
    const auth = bearer(key)
    const json = { ...auth, 'content-type': 'application/json' }
    const cases: [string, number, () => Promise<Res>][] = [
      ['list', 200, () => h.app.inject({ url: '/v1/pets', headers: auth })],
      [
        'create',
        201,
        () =>
          h.app.inject({ method: 'POST', url: '/v1/pets', headers: json, payload: '{"name":"Rex","categoryId":1}' }),
      ],
      ['bad query', 400, () => h.app.inject({ url: '/v1/pets?limit=0', headers: auth })],
      [
        'bad body',
        400,
        () => h.app.inject({ method: 'POST', url: '/v1/pets', headers: json, payload: '{"name":"Rex"}' }),
      ],
      ['bad path parameter', 400, () => h.app.inject({ url: '/v1/pets/abc', headers: auth })],
      ['pet_not_found', 404, () => h.app.inject({ url: '/v1/pets/999999', headers: auth })],
      [
        'too large',
        413,
        () =>
          h.app.inject({
            method: 'POST',
            url: '/v1/pets',
            headers: json,
            payload: JSON.stringify({ name: 'x'.repeat(20_000), categoryId: 1 }),
          }),
      ],
    ]
    let expected = 60
    for (const [what, status, send] of cases) {
      const headers = expectHeaders(await send(), status, FREE_POLICY, what)
      assert.equal(headers.remaining, --expected, `${what}: every keyed request is counted`)
      assert.equal(headers.limit, 60)
    }
    await spend(h, key, expected)
    const refused = expectHeaders(await h.app.inject({ url: '/v1/pets', headers: auth }), 429, FREE_POLICY, '429')
    assert.equal(refused.remaining, 0)
  },
)

test('410 of the sunset getPet carries the account headers', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T00:00:30Z') })
  const { key } = await h.newAccount()
  const pet = await createPet(h, key, { name: 'Rex', categoryId: 1 })
  h.clock.set(new Date('2031-01-01T00:00:30Z'))
  const headers = expectHeaders(
    await h.app.inject({ url: `/v1/pets/${pet.id}`, headers: bearer(key) }),
    410,
    FREE_POLICY,
    'sunset',
  )
  assert.equal(headers.remaining, 59)
})

test('500 carries the headers too', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T00:00:30Z') })
  const { key } = await h.newAccount()
  await sql`DROP TABLE pets`.execute(h.handle.db)
  const headers = expectHeaders(
    await h.app.inject({ url: '/v1/pets', headers: bearer(key) }),
    500,
    FREE_POLICY,
    'internal error',
  )
  assert.equal(headers.remaining, 59)
})

test(
  'requests without a valid key, unknown paths, ' + '405 and the OpenAPI document carry the per-address headers',
  async (t) => {
    const h = await startHarness(t, { now: new Date('2027-01-01T00:00:30Z') })
    const { key } = await h.newAccount()
    const cases: [string, number, () => Promise<Res>][] = [
      ['no key', 401, () => h.app.inject({ url: '/v1/pets' })],
      ['unknown key', 401, () => h.app.inject({ method: 'POST', url: '/v1/pets', headers: bearer('ps_test_unknown') })],
      ['malformed header', 401, () => h.app.inject({ url: '/v1/pets/1', headers: { authorization: 'Basic eDp5' } })],
      ['unknown path', 404, () => h.app.inject({ url: '/nope' })],
      ['unknown path under /v1 with a key', 404, () => h.app.inject({ url: '/v1/nope', headers: bearer(key) })],
      ['wrong method', 405, () => h.app.inject({ method: 'DELETE', url: '/v1/pets', headers: bearer(key) })],
      ['OpenAPI document', 200, () => h.app.inject({ url: '/v1/openapi.json' })],
    ]
    let expected = 60
    for (const [what, status, send] of cases) {
      const headers = expectHeaders(await send(), status, ADDRESS_POLICY, what)
      assert.equal(headers.remaining, --expected, what)
    }
  },
)
