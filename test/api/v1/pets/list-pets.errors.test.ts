// GET /v1/pets query validation: a bad, repeated or unknown parameter is a 400 invalid_parameter naming it.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness } from '../../../helpers/harness.js'
import { expectError, injectSender } from '../../../helpers/http.js'

async function expectBadParameter(
  t: Parameters<typeof startHarness>[0],
  queries: string[],
  name: string,
  code = 'invalid_parameter',
) {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  for (const query of queries) {
    const response = await injectSender(h)({ url: `/v1/pets?${query}`, headers: bearer(key) })
    assert.equal(response.statusCode, 400, `?${query}: ${response.body}`)
    const error = expectError(response, 400, code)
    assert.ok(error.message.includes(`'${name}'`), `?${query}: the message should name '${name}': ${error.message}`)
  }
}

test('limit outside 1..100 or not an integer', async (t) => {
  await expectBadParameter(
    t,
    [
      'limit=0',
      'limit=101',
      'limit=-1',
      'limit=1000000',
      'limit=abc',
      'limit=1.5',
      'limit=',
      'limit=true',
      'limit=1,2',
    ],
    'limit',
  )
})

test('status outside the enumeration', async (t) => {
  await expectBadParameter(
    t,
    ['status=lost', 'status=Available', 'status=SOLD', 'status=', 'status=available,sold'],
    'status',
  )
})

test('a repeated parameter, even with the same value', async (t) => {
  await expectBadParameter(t, ['limit=1&limit=2', 'limit=5&limit=5'], 'limit')
  await expectBadParameter(t, ['status=sold&status=available', 'limit=2&status=sold&status=sold'], 'status')
  await expectBadParameter(t, ['cursor=a&cursor=b'], 'cursor')
})

test('an unknown parameter, including other paging styles', async (t) => {
  await expectBadParameter(t, ['foo=1'], 'foo')
  await expectBadParameter(t, ['offset=20'], 'offset')
  await expectBadParameter(t, ['page=2'], 'page')
  await expectBadParameter(t, ['limit=5&Limit=5'], 'Limit')
})

test('a cursor that is empty or too long is refused before it is read', async (t) => {
  await expectBadParameter(t, ['cursor=', `cursor=${'a'.repeat(513)}`], 'cursor')
})

test('a good parameter beside a bad one is still refused', async (t) => {
  await expectBadParameter(t, ['limit=5&status=lost'], 'status')
  await expectBadParameter(t, ['status=sold&limit=0'], 'limit')
})
