// ps.messages against the real messages listener (its own base URL, the same keys and quota as the pet store).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { NotFoundError, Petstore } from '../../sdk/src/index.js'
import { messageRows, startMessagesHarness } from '../helpers/messages-harness.js'
import { thrownBy } from '../helpers/sdk.js'

test('send queues a message (with an Idempotency-Key), get shows it delivered after the worker ran', async (t) => {
  const h = await startMessagesHarness(t, { listen: true })
  const account = await h.newAccount()
  const ps = new Petstore({ apiKey: account.key, messagesUrl: h.baseUrl, baseUrl: 'http://127.0.0.1:1/v1' })
  const sent = await ps.messages.send('Hello, pet store')
  assert.match(sent.id, /^msg_/)
  assert.deepEqual(
    { ...sent, id: 'x', createdAt: 'x' },
    { id: 'x', message: 'Hello, pet store', status: 'queued', createdAt: 'x' },
  )
  await h.worker.runOnce()
  assert.equal((await ps.messages.get(sent.id)).status, 'delivered')
  const again = await ps.messages.send('Hello, pet store', { idempotencyKey: 'hello-1' })
  assert.equal(
    (await ps.messages.send('Hello, pet store', { idempotencyKey: 'hello-1' })).id,
    again.id,
    'replayed, not sent twice',
  )
  assert.equal((await messageRows(h)).length, 2)
  const err = await thrownBy(() => ps.messages.get('msg_nothing'))
  assert.ok(err instanceof NotFoundError && err.code === 'message_not_found')
})
