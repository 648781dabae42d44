// Tenancy (issue 4): a message is visible to its own account only. Another account's message is a 404
// `message_not_found` that looks exactly like an unknown id, so ids cannot be probed across accounts.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer } from '../../helpers/harness.js'
import { expectError } from '../../helpers/http.js'
import {
  getMessage,
  messageRows,
  sendMessage,
  startMessagesHarness,
  type MessagesHarness,
} from '../../helpers/messages-harness.js'

async function get(h: MessagesHarness, key: string, id: string) {
  const response = await h.app.inject({ url: `/messages/${id}`, headers: bearer(key) })
  const headers = Object.fromEntries(
    Object.entries(response.headers).map(([k, v]) => [k, v === undefined ? undefined : String(v)]),
  )
  return { statusCode: response.statusCode, headers, body: response.body }
}

/** An id of the same form and length as `id` that no message has. */
const unknownLike = (id: string) => `msg_${'0'.repeat(id.length - 'msg_'.length)}`

test("another account's message: 404 message_not_found, the same answer as an unknown id", async (t) => {
  const h = await startMessagesHarness(t)
  const alice = await h.newAccount({ name: 'alice' })
  const bob = await h.newAccount({ name: 'bob' })
  const secret = await sendMessage(h, alice.key, 'for alice only')

  const foreign = await get(h, bob.key, secret.id)
  const unknown = await get(h, bob.key, unknownLike(secret.id))
  expectError(foreign, 404, 'message_not_found')
  expectError(unknown, 404, 'message_not_found')
  assert.ok(!foreign.body.includes('for alice only'), foreign.body)
  // The same body once the id itself is taken out, and the same length.
  assert.equal(foreign.body.replaceAll(secret.id, '<id>'), unknown.body.replaceAll(unknownLike(secret.id), '<id>'))
  assert.equal(foreign.headers['content-length'], unknown.headers['content-length'])
  assert.deepEqual(Object.keys(foreign.headers).sort(), Object.keys(unknown.headers).sort())

  // The owner still sees it, unchanged.
  assert.deepEqual(await getMessage(h, alice.key, secret.id), secret)
})

test('each account sees only its own messages, both ways', async (t) => {
  const h = await startMessagesHarness(t)
  const alice = await h.newAccount({ name: 'alice' })
  const bob = await h.newAccount({ name: 'bob' })
  const a = await sendMessage(h, alice.key, 'from alice')
  const b = await sendMessage(h, bob.key, 'from bob')
  assert.deepEqual(await getMessage(h, alice.key, a.id), a)
  assert.deepEqual(await getMessage(h, bob.key, b.id), b)
  expectError(await get(h, alice.key, b.id), 404, 'message_not_found')
  expectError(await get(h, bob.key, a.id), 404, 'message_not_found')
})

test('a delivered message of another account is still a 404 (state does not leak)', async (t) => {
  const h = await startMessagesHarness(t)
  const alice = await h.newAccount({ name: 'alice' })
  const bob = await h.newAccount({ name: 'bob' })
  const sent = await sendMessage(h, alice.key, 'delivered')
  await h.worker.runOnce()
  assert.equal((await getMessage(h, alice.key, sent.id)).status, 'delivered')
  const foreign = await get(h, bob.key, sent.id)
  expectError(foreign, 404, 'message_not_found')
  assert.doesNotMatch(foreign.body, /delivered/)
})

test('a message is stored under the account of the key that sent it', async (t) => {
  const h = await startMessagesHarness(t)
  const alice = await h.newAccount({ name: 'alice' })
  const bob = await h.newAccount({ name: 'bob' })
  const a = await sendMessage(h, alice.key, 'a')
  const b = await sendMessage(h, bob.key, 'b')
  assert.deepEqual(
    (await messageRows(h)).map((r) => [r.id, r.account_id]),
    [
      [a.id, alice.accountId],
      [b.id, bob.accountId],
    ],
  )
})

test('ids that are not message ids: 404 message_not_found or 400, never a 500', async (t) => {
  const h = await startMessagesHarness(t)
  const { key } = await h.newAccount()
  await sendMessage(h, key, 'x')
  for (const id of ['1', 'msg_', "msg_' OR '1'='1", '%25', 'x'.repeat(64)]) {
    const response = await get(h, key, encodeURIComponent(id))
    expectError(response, 404, 'message_not_found')
  }
  const tooLong = await get(h, key, 'x'.repeat(65))
  expectError(tooLong, 400, 'invalid_parameter', "'id'")
})
