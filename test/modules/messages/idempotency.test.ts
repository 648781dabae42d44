// Idempotency-Key on POST /messages (issue 4: same rules and codes as POST /v1/pets): a retry with the same
// key and body replays the first answer (`Idempotent-Replayed: true`, same id, no second message), another
// body with the same key is 422, a malformed key is 400.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { expectError } from '../../helpers/http.js'
import {
  messageRows,
  postMessage,
  startMessagesHarness,
  type MessageJson,
  type MessagesHarness,
} from '../../helpers/messages-harness.js'

const flat = (response: Awaited<ReturnType<typeof postMessage>>) => ({
  statusCode: response.statusCode,
  headers: Object.fromEntries(
    Object.entries(response.headers).map(([k, v]) => [k, v === undefined ? undefined : String(v)]),
  ),
  body: response.body,
})

async function setup(t: Parameters<typeof startMessagesHarness>[0]): Promise<{ h: MessagesHarness; key: string }> {
  const h = await startMessagesHarness(t)
  const { key } = await h.newAccount()
  return { h, key }
}

test(
  'a replay with the same key and body: 202, Idempotent-Replayed: ' + 'true, the same Message and Location, one row',
  async (t) => {
    const { h, key } = await setup(t)
    const idem = { 'idempotency-key': '"8e03978e-40d5-43e8-bc93-6894a57f9324"' }
    const first = await postMessage(h, key, { message: 'only once' }, idem)
    assert.equal(first.statusCode, 202, first.body)
    assert.equal(first.headers['idempotent-replayed'], undefined, 'the first answer is not a replay')

    h.clock.advance(30_000)
    const again = await postMessage(h, key, { message: 'only once' }, idem)
    assert.equal(again.statusCode, 202, again.body)
    assert.equal(again.headers['idempotent-replayed'], 'true')
    assert.deepEqual(again.json(), first.json())
    assert.equal(again.headers.location, first.headers.location)

    const rows = await messageRows(h)
    assert.deepEqual(
      rows.map((r) => r.id),
      [first.json<MessageJson>().id],
    )
  },
)

test(
  'the replay matches on content, not on the bytes: ' + 'other key order or white space is the same request',
  async (t) => {
    const { h, key } = await setup(t)
    const idem = { 'idempotency-key': 'same-content' }
    const first = await postMessage(h, key, '{"message":"hi"}', idem)
    const again = await postMessage(h, key, '{ "message" : "hi" }\n', idem)
    assert.equal(again.statusCode, 202, again.body)
    assert.equal(again.headers['idempotent-replayed'], 'true')
    assert.equal(again.json<MessageJson>().id, first.json<MessageJson>().id)
    assert.equal((await messageRows(h)).length, 1)
  },
)

test('the replay is the stored first answer even after the message was delivered', async (t) => {
  const { h, key } = await setup(t)
  const idem = { 'idempotency-key': 'after-delivery' }
  const first = await postMessage(h, key, { message: 'hello' }, idem)
  await h.worker.runOnce()
  const again = await postMessage(h, key, { message: 'hello' }, idem)
  assert.equal(again.statusCode, 202)
  assert.deepEqual(again.json(), first.json())
  assert.equal(await h.worker.runOnce(), 0, 'nothing new to deliver')
  assert.equal(h.log().filter((l) => l.msg === 'message delivered').length, 1)
})

test('the same key with a different body: 422 idempotency_key_reused, nothing new stored', async (t) => {
  const { h, key } = await setup(t)
  const idem = { 'idempotency-key': 'reused-key' }
  assert.equal((await postMessage(h, key, { message: 'first' }, idem)).statusCode, 202)
  expectError(flat(await postMessage(h, key, { message: 'second' }, idem)), 422, 'idempotency_key_reused')
  assert.deepEqual(
    (await messageRows(h)).map((r) => r.message),
    ['first'],
  )
})

test('a different key is a new message', async (t) => {
  const { h, key } = await setup(t)
  const a = await postMessage(h, key, { message: 'same text' }, { 'idempotency-key': 'key-a' })
  const b = await postMessage(h, key, { message: 'same text' }, { 'idempotency-key': 'key-b' })
  assert.equal(b.headers['idempotent-replayed'], undefined)
  assert.notEqual(a.json<MessageJson>().id, b.json<MessageJson>().id)
  assert.equal((await messageRows(h)).length, 2)
})

test('keys belong to an account: the same key from another account is its own request', async (t) => {
  const { h, key } = await setup(t)
  const other = await h.newAccount({ name: 'other' })
  const idem = { 'idempotency-key': 'shared-name' }
  const mine = await postMessage(h, key, { message: 'mine' }, idem)
  const theirs = await postMessage(h, other.key, { message: 'theirs' }, idem)
  assert.equal(theirs.statusCode, 202, theirs.body)
  assert.equal(theirs.headers['idempotent-replayed'], undefined)
  assert.notEqual(theirs.json<MessageJson>().id, mine.json<MessageJson>().id)
})

test('a malformed Idempotency-Key: 400 invalid_idempotency_key naming the header, nothing stored', async (t) => {
  const { h, key } = await setup(t)
  for (const [what, value] of [
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['an unterminated quote', '"abc'],
    ['a space inside', 'two words'],
    ['a control character', 'a\tb'],
  ] as const) {
    const response = flat(await postMessage(h, key, { message: 'hi' }, { 'idempotency-key': value }))
    assert.equal(response.statusCode, 400, `${what}: ${response.body}`)
    expectError(response, 400, 'invalid_idempotency_key', 'Idempotency-Key')
  }
  assert.deepEqual(await messageRows(h), [])
  const longest = await postMessage(h, key, { message: 'hi' }, { 'idempotency-key': 'k'.repeat(255) })
  assert.equal(longest.statusCode, 202, `255 characters are allowed: ${longest.body}`)
})

test(
  'a refused body is not remembered under the key: ' + 'fixed and resent with the same key, it is accepted',
  async (t) => {
    const { h, key } = await setup(t)
    const idem = { 'idempotency-key': 'fix-and-retry' }
    expectError(flat(await postMessage(h, key, { message: '' }, idem)), 400, 'invalid_body')
    const fixed = await postMessage(h, key, { message: 'fixed' }, idem)
    assert.equal(fixed.statusCode, 202, fixed.body)
    assert.equal(fixed.headers['idempotent-replayed'], undefined)
  },
)
