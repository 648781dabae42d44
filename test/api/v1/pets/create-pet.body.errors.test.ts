// POST /v1/pets body-level failures: not JSON, not an object, empty, wrong or missing Content-Type
// (400 invalid_content_type, not 415), over 16 KiB (413). Every one is the Error shape and stores nothing.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness, type Harness } from '../../../helpers/harness.js'
import { expectError, injectSender, type HttpResponse } from '../../../helpers/http.js'

async function post(h: Harness, headers: Record<string, string>, body?: string): Promise<HttpResponse> {
  return injectSender(h)({ method: 'POST', url: '/v1/pets', headers, body })
}

async function assertNothingStored(h: Harness) {
  assert.deepEqual(await h.handle.db.selectFrom('pets').selectAll().execute(), [])
}

test('a body that is valid JSON but not an object: 400 invalid_body', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  for (const body of ['[]', '[{"name":"Rex","categoryId":1}]', '"x"', 'null', '1', 'true']) {
    const error = expectError(
      await post(h, { ...bearer(key), 'content-type': 'application/json' }, body),
      400,
      'invalid_body',
    )
    assert.match(error.message, /body/i, `${body}: ${error.message}`)
  }
  await assertNothingStored(h)
})

test('malformed JSON, duplicate keys and trailing garbage: 400 invalid_json', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const bodies = [
    '{',
    '{"name":',
    "{'name':'Rex','categoryId':1}",
    '{"name":"Rex","categoryId":1,}',
    '{"name":"Rex","categoryId":1} x',
    '{"name":"Rex","name":"Tom","categoryId":1}',
  ]
  for (const body of bodies) {
    const response = await post(h, { ...bearer(key), 'content-type': 'application/json' }, body)
    assert.equal(response.statusCode, 400, `${body}: ${response.body}`)
    expectError(response, 400, 'invalid_json')
  }
  await assertNothingStored(h)
})

test('an empty body with a JSON Content-Type: 400 invalid_json', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  for (const body of ['', '   ', '\r\n', undefined]) {
    const error = expectError(
      await post(h, { ...bearer(key), 'content-type': 'application/json' }, body),
      400,
      'invalid_json',
    )
    assert.match(error.message, /empty/, `${JSON.stringify(body)}: ${error.message}`)
  }
  await assertNothingStored(h)
})

test('no Content-Type, or one that is not JSON: 400 invalid_content_type, never 415', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const body = '{"name":"Rex","categoryId":1}'
  expectError(await post(h, bearer(key), body), 400, 'invalid_content_type', 'Content-Type')
  expectError(await post(h, bearer(key)), 400, 'invalid_content_type', 'Content-Type')
  const types = [
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/vnd.api+json',
    'application/json-patch+json',
    'application/json; charset=latin1',
    'json',
  ]
  for (const type of types) {
    const response = await post(h, { ...bearer(key), 'content-type': type }, body)
    assert.equal(response.statusCode, 400, `${type}: ${response.body}`)
    expectError(response, 400, 'invalid_content_type', 'Content-Type')
  }
  await assertNothingStored(h)
})

test('a body over 16 KiB: 413 payload_too_large, even when it would be valid JSON', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const valid = JSON.stringify({ name: 'Rex', categoryId: 1 })
  for (const body of [
    valid.padEnd(16 * 1024 + 1, ' '),
    JSON.stringify({ name: 'x'.repeat(20_000), categoryId: 1 }),
    'x'.repeat(100_000),
  ]) {
    expectError(await post(h, { ...bearer(key), 'content-type': 'application/json' }, body), 413, 'payload_too_large')
  }
  await assertNothingStored(h)
})

test('the body is read only after authentication: a bad body without a key is a 401', async (t) => {
  const h = await startHarness(t)
  for (const [headers, body] of [
    [{ 'content-type': 'application/json' }, '{'],
    [{ 'content-type': 'text/plain' }, 'x'],
  ] as const) {
    expectError(await post(h, headers, body), 401, 'missing_api_key')
  }
})
