// GET /messages/{id} (issue 4): the current state of one's own message — queued when accepted, then what
// the worker made of it.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer } from '../../helpers/harness.js'
import { getMessage, sendMessage, startMessagesHarness } from '../../helpers/messages-harness.js'
import { testActor } from '../../helpers/actors.js'

test('own message: 200 with the same Message the 202 gave, while queued', async (t) => {
  const h = await startMessagesHarness(t)
  const { key } = await h.newAccount()
  const sent = await sendMessage(h, key, 'Hello')
  h.clock.advance(5_000)
  const response = await h.app.inject({ url: `/messages/${sent.id}`, headers: bearer(key) })
  assert.equal(response.statusCode, 200, response.body)
  assert.match(String(response.headers['content-type']), /^application\/json/)
  assert.deepEqual(response.json(), { id: sent.id, message: 'Hello', status: 'queued', createdAt: sent.createdAt })
  assert.equal(response.headers['x-ratelimit-limit'], '60')
})

test('the current state: delivered after the worker ran, the rest of the Message unchanged', async (t) => {
  const h = await startMessagesHarness(t)
  const { key } = await h.newAccount()
  const sent = await sendMessage(h, key, 'Hello')
  assert.equal((await getMessage(h, key, sent.id)).status, 'queued')
  h.clock.advance(1_000)
  assert.equal(await h.worker.runOnce(), 1)
  assert.deepEqual(await getMessage(h, key, sent.id), { ...sent, status: 'delivered' })
})

test('another key of the same account sees the message', async (t) => {
  const h = await startMessagesHarness(t)
  const account = await h.newAccount()
  const second = await h.services.accounts.createApiKey({
    actor: testActor,
    accountId: account.accountId,
    environment: 'test',
  })
  const sent = await sendMessage(h, account.key, 'shared within the account')
  assert.deepEqual(await getMessage(h, second.key, sent.id), sent)
})
