// Strings must be text a database stores as sent: U+0000 (PostgreSQL text cannot hold it) and unpaired surrogates
// (stored as U+FFFD) are a 400 naming the field, on every input: body fields, path ids, query parameters, the
// Idempotency-Key, the admin ids. Valid text, astral characters included, is stored exactly. On the run's backend.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ADMIN_TOKEN_SETTING } from '../../src/modules/limits/admin-channel.js'
import { loadOrCreateSecret } from '../../src/db/settings.js'
import { bearer, errorOf } from '../helpers/harness.js'
import { postMessage, startMessagesHarness } from '../helpers/messages-harness.js'

// JSON text of a string value, escapes kept as written (JSON.stringify would write a lone surrogate escaped too,
// but U+0000 goes out as \u0000 either way; writing them by hand says what is sent).
const BAD = [
  ['U+0000', 'Re\\u0000x'],
  ['a lone high surrogate', 'Rex\\ud800'],
  ['a lone low surrogate', '\\udc00Rex'],
  ['a reversed pair', 'R\\udc00\\ud800x'],
] as const

/** A 400 with the Error body, the code, and a message that names `field`. */
function expectError(response: Parameters<typeof errorOf>[0], status: 400, code: string, field: string): void {
  const error = errorOf(response)
  assert.deepEqual([response.statusCode, error.code], [status, code], response.body)
  assert.ok(error.message.includes(field), error.message)
}

async function setup(t: Parameters<typeof startMessagesHarness>[0]) {
  const h = await startMessagesHarness(t, { pets: true })
  const { key } = await h.newAccount()
  const pets = h.pets!
  const post = (url: string, body: string, headers: Record<string, string> = {}) =>
    (url === '/messages' ? h.app : pets).inject({
      method: 'POST',
      url,
      headers: { ...bearer(key), 'content-type': 'application/json', ...headers },
      payload: body,
    })
  return { h, key, pets, post }
}

for (const [what, text] of BAD) {
  test(
    `${what} in a body field is a 400 naming the field (pets: ` + `name, messages: message); nothing is stored`,
    async (t) => {
      const { h, key, pets, post } = await setup(t)
      expectError(await post('/v1/pets', `{"name":"${text}","categoryId":1}`), 400, 'invalid_body', "'name'")
      expectError(await post('/messages', `{"message":"${text}"}`), 400, 'invalid_body', "'message'")
      assert.equal((await pets.inject({ url: '/v1/pets', headers: bearer(key) })).body, '[]')
      assert.deepEqual(await h.handle.db.selectFrom('messages').select('id').execute(), [])
    },
  )
}

test('valid text, astral characters and escapes included, is accepted and stored exactly', async (t) => {
  const { h, key, pets, post } = await setup(t)
  const name = 'Rex 🐶 \t "é"'
  const created = await post('/v1/pets', `{"name":"Rex \\ud83d\\udc36 \\t \\"\\u00e9\\"","categoryId":1}`)
  assert.equal(created.statusCode, 201, created.body)
  assert.equal(created.json().name, name)
  const read = await pets.inject({ url: `/v1/pets/${created.json().id}`, headers: bearer(key) })
  assert.equal(read.json().name, name)
  const sent = await postMessage(h, key, { message: '🐶🐱' })
  assert.equal(sent.statusCode, 202, sent.body)
  const message = await h.app.inject({ url: `/messages/${sent.json().id}`, headers: bearer(key) })
  assert.equal(message.json().message, '🐶🐱')
})

test('U+0000 in a path id or a query parameter is a 400 naming it', async (t) => {
  const { h, key, pets } = await setup(t)
  expectError(await h.app.inject({ url: '/messages/msg_%00', headers: bearer(key) }), 400, 'invalid_parameter', "'id'")
  expectError(await pets.inject({ url: '/v1/pets/%00', headers: bearer(key) }), 400, 'invalid_parameter', "'petId'")
  expectError(
    await pets.inject({ url: '/v1/pets?cursor=a%00b', headers: bearer(key) }),
    400,
    'invalid_parameter',
    "'cursor'",
  )
})

test('U+0000 in an Idempotency-Key is a 400 invalid_idempotency_key, on both interfaces', async (t) => {
  const { post } = await setup(t)
  const headers = { 'idempotency-key': 'abc\u0000def' }
  expectError(
    await post('/v1/pets', '{"name":"Rex","categoryId":1}', headers),
    400,
    'invalid_idempotency_key',
    'Idempotency-Key',
  )
  expectError(await post('/messages', '{"message":"hi"}', headers), 400, 'invalid_idempotency_key', 'Idempotency-Key')
})

test('U+0000 in an admin id is a 400 naming it', async (t) => {
  const { h, pets } = await setup(t)
  const token = await loadOrCreateSecret(h.handle.db, ADMIN_TOKEN_SETTING)
  expectError(
    await pets.inject({ url: '/admin/accounts/acct_%00/usage', headers: bearer(token) }),
    400,
    'invalid_parameter',
    "'id'",
  )
  expectError(
    await pets.inject({ method: 'POST', url: '/admin/keys/key_%00/unban', headers: bearer(token) }),
    400,
    'invalid_parameter',
    "'id'",
  )
})
