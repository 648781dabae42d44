// GET /v1/store/orders query validation: a bad, repeated or unknown parameter is a 400 invalid_parameter naming it.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness } from '../../../helpers/harness.js'
import { expectError, injectSender } from '../../../helpers/http.js'
import { roomyAccount } from '../../../helpers/pets.js'

test('each bad query is a 400 invalid_parameter naming the parameter', async (t) => {
  const h = await startHarness(t)
  const { key } = await roomyAccount(h)
  const send = injectSender(h)
  const cases: [string, string][] = [
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=', 'limit'],
    ['limit=1e1', 'limit'],
    ['status=shipped', 'status'],
    ['status=Placed', 'status'],
    ['status=available', 'status'],
    ['status=', 'status'],
    ['status=placed,approved', 'status'],
    ['limit=1&limit=2', 'limit'],
    ['limit=5&limit=5', 'limit'],
    ['status=placed&status=placed', 'status'],
    ['cursor=a&cursor=b', 'cursor'],
    ['cursor=', 'cursor'],
    [`cursor=${'a'.repeat(513)}`, 'cursor'],
    ['foo=1', 'foo'],
    ['offset=20', 'offset'],
    ['page=2', 'page'],
    ['petId=1', 'petId'],
    ['limit=5&Limit=5', 'Limit'],
    ['limit=5&status=lost', 'status'],
  ]
  for (const [query, name] of cases) {
    const response = await send({ url: `/v1/store/orders?${query}`, headers: bearer(key) })
    assert.equal(response.statusCode, 400, `?${query}: ${response.body}`)
    expectError(response, 400, 'invalid_parameter', `'${name}'`)
  }
})
