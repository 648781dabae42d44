// POST /messages with a bad body (spec 4.4; issue 4): each case a 400 with the Error body whose code and
// message name the problem — invalid JSON, `message` absent / not a string / empty / too long, unknown
// fields, a body that is not an object, no or another Content-Type (400, not 415), an empty body — and
// 413 over 64 KiB. A refused request stores nothing.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer } from '../../helpers/harness.js'
import { expectError } from '../../helpers/http.js'
import { messageRows, startMessagesHarness, type MessagesHarness } from '../../helpers/messages-harness.js'

interface Case {
  headers?: Record<string, string>
  /** Sent as is (no payload at all when undefined). */
  payload?: string
}

async function setup(t: Parameters<typeof startMessagesHarness>[0]) {
  const h = await startMessagesHarness(t)
  const { key } = await h.newAccount()
  /** POST /messages with the key and `Content-Type: application/json` unless the case says otherwise. */
  const post = async ({ headers = { 'content-type': 'application/json' }, payload }: Case) => {
    const response = await h.app.inject({
      method: 'POST',
      url: '/messages',
      headers: { ...bearer(key), ...headers },
      ...(payload === undefined ? {} : { payload }),
    })
    const flat = Object.fromEntries(
      Object.entries(response.headers).map(([k, v]) => [k, v === undefined ? undefined : String(v)]),
    )
    return { statusCode: response.statusCode, headers: flat, body: response.body }
  }
  return { h, post }
}

async function nothingStored(h: MessagesHarness) {
  assert.deepEqual(await messageRows(h), [])
}

const json = (value: unknown) => JSON.stringify(value)

test('invalid JSON: 400 invalid_json naming JSON', async (t) => {
  const { h, post } = await setup(t)
  for (const payload of [
    '{"message":',
    '{"message": "hi",}',
    "{'message': 'hi'}",
    '{message: "hi"}',
    'Hello',
    '{"message":"hi"} trailing',
  ]) {
    const response = await post({ payload })
    assert.equal(response.statusCode, 400, `${payload}: ${response.body}`)
    expectError(response, 400, 'invalid_json', 'JSON')
  }
  await nothingStored(h)
})

test('`message` absent: 400 invalid_body naming message', async (t) => {
  const { h, post } = await setup(t)
  expectError(await post({ payload: '{}' }), 400, 'invalid_body', "'message'")
  await nothingStored(h)
})

test('`message` a number: 400 invalid_body naming message and its type', async (t) => {
  const { h, post } = await setup(t)
  const error = expectError(await post({ payload: json({ message: 42 }) }), 400, 'invalid_body', "'message'")
  assert.match(error.message, /string/)
  await nothingStored(h)
})

test('`message` null: 400 invalid_body naming message', async (t) => {
  const { h, post } = await setup(t)
  expectError(await post({ payload: json({ message: null }) }), 400, 'invalid_body', "'message'")
  await nothingStored(h)
})

test('`message` an object: 400 invalid_body naming message', async (t) => {
  const { h, post } = await setup(t)
  expectError(await post({ payload: json({ message: { text: 'hi' } }) }), 400, 'invalid_body', "'message'")
  await nothingStored(h)
})

test('`message` a boolean or an array: 400 invalid_body naming message', async (t) => {
  const { h, post } = await setup(t)
  expectError(await post({ payload: json({ message: true }) }), 400, 'invalid_body', "'message'")
  expectError(await post({ payload: json({ message: ['hi'] }) }), 400, 'invalid_body', "'message'")
  await nothingStored(h)
})

test('`message` the empty string: 400 invalid_body naming message', async (t) => {
  const { h, post } = await setup(t)
  const error = expectError(await post({ payload: json({ message: '' }) }), 400, 'invalid_body', "'message'")
  assert.match(error.message, /at least 1/)
  await nothingStored(h)
})

test('`message` over 4096 characters: 400 invalid_body naming message and the maximum; 4096 is accepted', async (t) => {
  const { h, post } = await setup(t)
  for (const text of ['x'.repeat(4097), 'é'.repeat(4097), 'x'.repeat(10_000)]) {
    const error = expectError(await post({ payload: json({ message: text }) }), 400, 'invalid_body', "'message'")
    assert.match(error.message, /4096/)
  }
  await nothingStored(h)
  const accepted = await post({ payload: json({ message: 'x'.repeat(4096) }) })
  assert.equal(accepted.statusCode, 202, accepted.body)
  assert.equal((await messageRows(h)).length, 1)
})

test('an unknown field: 400 invalid_body naming that field', async (t) => {
  const { h, post } = await setup(t)
  expectError(await post({ payload: json({ message: 'hi', priority: 'high' }) }), 400, 'invalid_body', "'priority'")
  expectError(await post({ payload: json({ text: 'hi' }) }), 400, 'invalid_body')
  await nothingStored(h)
})

test('a duplicate `message` key: 400, not silently one of the two', async (t) => {
  const { h, post } = await setup(t)
  const response = await post({ payload: '{"message":"a","message":"b"}' })
  assert.equal(response.statusCode, 400, response.body)
  expectError(response, 400, 'invalid_json')
  await nothingStored(h)
})

test('the body an array: 400 invalid_body saying it must be an object', async (t) => {
  const { h, post } = await setup(t)
  expectError(await post({ payload: json([{ message: 'hi' }]) }), 400, 'invalid_body', 'object')
  await nothingStored(h)
})

test('the body a JSON string: 400 invalid_body saying it must be an object', async (t) => {
  const { h, post } = await setup(t)
  expectError(await post({ payload: json('hi') }), 400, 'invalid_body', 'object')
  await nothingStored(h)
})

test('the body null: 400 invalid_body saying it must be an object', async (t) => {
  const { h, post } = await setup(t)
  expectError(await post({ payload: 'null' }), 400, 'invalid_body', 'object')
  await nothingStored(h)
})

test('the body a number: 400 invalid_body saying it must be an object', async (t) => {
  const { h, post } = await setup(t)
  expectError(await post({ payload: '42' }), 400, 'invalid_body', 'object')
  await nothingStored(h)
})

test('no Content-Type: 400 invalid_content_type naming application/json (not 415)', async (t) => {
  const { h, post } = await setup(t)
  expectError(
    await post({ headers: {}, payload: json({ message: 'hi' }) }),
    400,
    'invalid_content_type',
    'Content-Type: application/json',
  )
  await nothingStored(h)
})

test('Content-Type: text/plain: 400 invalid_content_type (not 415)', async (t) => {
  const { h, post } = await setup(t)
  expectError(
    await post({ headers: { 'content-type': 'text/plain' }, payload: json({ message: 'hi' }) }),
    400,
    'invalid_content_type',
    'application/json',
  )
  await nothingStored(h)
})

test('other media types and charsets: 400 invalid_content_type', async (t) => {
  const { h, post } = await setup(t)
  for (const type of [
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonx',
    'application/json; charset=latin1',
    'text/json',
  ]) {
    const response = await post({ headers: { 'content-type': type }, payload: json({ message: 'hi' }) })
    assert.equal(response.statusCode, 400, `${type}: ${response.body}`)
    expectError(response, 400, 'invalid_content_type')
  }
  await nothingStored(h)
})

test('an empty body with Content-Type: application/json: 400 invalid_json saying it is empty', async (t) => {
  const { h, post } = await setup(t)
  expectError(await post({ payload: '' }), 400, 'invalid_json', 'empty')
  expectError(await post({ payload: '   ' }), 400, 'invalid_json', 'empty')
  await nothingStored(h)
})

test('no body at all: 400 (invalid_json with the JSON type, invalid_content_type without)', async (t) => {
  const { h, post } = await setup(t)
  expectError(await post({}), 400, 'invalid_json')
  expectError(await post({ headers: {} }), 400, 'invalid_content_type')
  await nothingStored(h)
})

test('a body over 64 KiB: 413 payload_too_large; just under it is read (and judged on its content)', async (t) => {
  const { h, post } = await setup(t)
  const over = json({ message: 'x'.repeat(64 * 1024) })
  expectError(await post({ payload: over }), 413, 'payload_too_large', '64 KiB')
  // Exactly 64 KiB: within the limit, so the answer is about `message` being too long, not the size.
  const padding = 64 * 1024 - json({ message: '' }).length
  const exact = json({ message: 'x'.repeat(padding) })
  assert.equal(Buffer.byteLength(exact), 64 * 1024)
  expectError(await post({ payload: exact }), 400, 'invalid_body', "'message'")
  await nothingStored(h)
})
