// POST /v1/pets field validation: each bad field is a 400 invalid_body whose message names the field,
// and nothing is stored.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness, type Harness } from '../../../helpers/harness.js'
import { expectError, injectSender } from '../../../helpers/http.js'

async function expectRefused(h: Harness, key: string, cases: [string, string][], field: string) {
  const send = injectSender(h)
  for (const [what, body] of cases) {
    const response = await send({
      method: 'POST',
      url: '/v1/pets',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      body,
    })
    assert.equal(response.statusCode, 400, `${what}: ${response.body}`)
    const error = expectError(response, 400, 'invalid_body')
    assert.ok(error.message.includes(`'${field}'`), `${what}: the message should name '${field}': ${error.message}`)
  }
  const stored = await h.handle.db.selectFrom('pets').selectAll().execute()
  assert.deepEqual(stored, [], 'nothing was stored')
}

test('missing required fields are named', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  await expectRefused(
    h,
    key,
    [
      ['no name', '{"categoryId":1}'],
      ['no name, with status', '{"categoryId":1,"status":"sold"}'],
    ],
    'name',
  )
  await expectRefused(
    h,
    key,
    [
      ['no categoryId', '{"name":"Rex"}'],
      ['no categoryId, with status', '{"name":"Rex","status":"sold"}'],
    ],
    'categoryId',
  )
})

test('name: empty, white space only, over 100 characters, or not a string', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const name = (value: unknown) => JSON.stringify({ name: value, categoryId: 1 })
  await expectRefused(
    h,
    key,
    [
      ['empty', name('')],
      ['spaces', name('   ')],
      ['tabs and newlines', name('\t\n \r')],
      ['101 characters', name('x'.repeat(101))],
      ['101 emoji', name('🐶'.repeat(101))],
      ['a number', name(5)],
      ['null', name(null)],
      ['true', name(true)],
      ['an array', name(['Rex'])],
      ['an object', name({ first: 'Rex' })],
    ],
    'name',
  )
})

test('categoryId: strings, fractions, zero, negatives, beyond int64, other types', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const cases: [string, string][] = [
    ['the string "1"', '"1"'],
    ['the string "9223372036854775807"', '"9223372036854775807"'],
    ['1.5', '1.5'],
    ['0.1', '0.1'],
    ['0', '0'],
    ['-1', '-1'],
    ['-9223372036854775808', '-9223372036854775808'],
    ['9223372036854775808', '9223372036854775808'],
    ['18446744073709551616', '18446744073709551616'],
    ['1e400', '1e400'],
    ['null', 'null'],
    ['true', 'true'],
    ['[1]', '[1]'],
    ['{}', '{}'],
  ].map(([what, value]) => [what!, `{"name":"Rex","categoryId":${value}}`])
  await expectRefused(h, key, cases, 'categoryId')
})

test('status: a value outside the enumeration, another case, or another type', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const cases: [string, string][] = ['"lost"', '"Available"', '"SOLD"', '""', '1', 'null', '["sold"]'].map((v) => [
    v,
    `{"name":"Rex","categoryId":1,"status":${v}}`,
  ])
  await expectRefused(h, key, cases, 'status')
})

test('unknown fields are refused and named, including __proto__ and constructor', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  for (const field of ['color', 'id', '__proto__', 'constructor', 'Name']) {
    await expectRefused(h, key, [[field, `{"name":"Rex","categoryId":1,"${field}":{"polluted":true}}`]], field)
  }
  assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype was not touched')
})
