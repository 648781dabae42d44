// A webhook receiver that fails (issue 4): each failed attempt leaves the message `queued`, the next attempt comes only
// after its step of MESSAGES_RETRY_SCHEDULE (1s,2s,4s here, at the full delay; driven by the manual clock), and after
// MESSAGES_WEBHOOK_MAX_ATTEMPTS attempts the message is `failed`. Per Standard Webhooks, only a 2xx answer is a
// success: redirects, refused connections and 4xx/5xx are failures.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { freePort } from '../../helpers/serve.js'
import {
  getMessage,
  inTurn,
  messageRows,
  newWebhookSecret,
  sendMessage,
  startMessagesHarness,
  startReceiver,
  webhookEnv,
  type ReceiverAnswer,
  type ReceivedWebhook,
} from '../../helpers/messages-harness.js'

const BASE_MS = 1000
const SCHEDULE = '1s,2s,4s'

async function setup(
  t: Parameters<typeof startMessagesHarness>[0],
  answer: (r: ReceivedWebhook, i: number) => ReceiverAnswer,
  maxAttempts: number,
) {
  const receiver = await startReceiver(t, answer)
  const h = await startMessagesHarness(t, {
    env: webhookEnv(receiver.url, newWebhookSecret(), {
      MESSAGES_WEBHOOK_MAX_ATTEMPTS: String(maxAttempts),
      MESSAGES_RETRY_SCHEDULE: SCHEDULE,
    }),
  })
  const account = await h.newAccount()
  return { h, receiver, account }
}

test(
  'a receiver answering 500: retried after 1 s, 2 s, ' + '4 s (not before), then failed after the 4th attempt',
  async (t) => {
    const { h, receiver, account } = await setup(t, inTurn(500), 4)
    const sent = await sendMessage(h, account.key, 'doomed')
    const status = async () => (await getMessage(h, account.key, sent.id)).status

    assert.equal(await h.worker.runOnce(), 1, 'first attempt')
    assert.equal(receiver.received.length, 1)
    assert.equal(await status(), 'queued')

    for (const [i, delay] of [BASE_MS, 2 * BASE_MS, 4 * BASE_MS].entries()) {
      const attempt = i + 2
      h.clock.advance(delay - 1)
      assert.equal(await h.worker.runOnce(), 0, `attempt ${attempt} must wait the full ${delay} ms`)
      assert.equal(receiver.received.length, attempt - 1)
      assert.equal(await status(), 'queued')
      h.clock.advance(1)
      assert.equal(await h.worker.runOnce(), 1, `attempt ${attempt} after ${delay} ms`)
      assert.equal(receiver.received.length, attempt)
      assert.equal(await status(), attempt < 4 ? 'queued' : 'failed')
    }

    // Failed is final: no attempt ever again.
    h.clock.advance(7 * 24 * 60 * 60 * 1000)
    assert.equal(await h.worker.runOnce(), 0)
    assert.equal(receiver.received.length, 4)
    assert.deepEqual(await getMessage(h, account.key, sent.id), { ...sent, status: 'failed' })
    const [row] = await messageRows(h)
    assert.equal(Number(row!.attempts), 4)
    assert.match(row!.last_error ?? '', /500/)
  },
)

test('each failed attempt is logged as a warning; the last one says it is final', async (t) => {
  const { h, account } = await setup(t, inTurn(503), 2)
  const sent = await sendMessage(h, account.key, 'logged')
  await h.worker.runOnce()
  h.clock.advance(BASE_MS)
  await h.worker.runOnce()
  const failures = h.log().filter((l) => l.msg === 'message delivery failed')
  assert.deepEqual(
    failures.map((l) => [l.level, l.messageId, l.attempt, l.final]),
    [
      [40, sent.id, 1, false],
      [40, sent.id, 2, true],
    ],
  )
  assert.ok(!JSON.stringify(failures).includes('logged'), 'the message text is not in the failure lines')
})

test('MESSAGES_WEBHOOK_MAX_ATTEMPTS=1: failed after the first failure', async (t) => {
  const { h, receiver, account } = await setup(t, inTurn(500), 1)
  const sent = await sendMessage(h, account.key, 'one shot')
  await h.worker.runOnce()
  assert.equal((await getMessage(h, account.key, sent.id)).status, 'failed')
  h.clock.advance(60 * 60 * 1000)
  assert.equal(await h.worker.runOnce(), 0)
  assert.equal(receiver.received.length, 1)
})

test('a receiver that recovers before the last attempt: delivered on it', async (t) => {
  const { h, receiver, account } = await setup(t, inTurn(500, 502, 200), 3)
  const sent = await sendMessage(h, account.key, 'eventually')
  await h.worker.runOnce()
  h.clock.advance(BASE_MS)
  await h.worker.runOnce()
  assert.equal((await getMessage(h, account.key, sent.id)).status, 'queued')
  h.clock.advance(2 * BASE_MS)
  assert.equal(await h.worker.runOnce(), 1)
  assert.equal(receiver.received.length, 3)
  assert.equal((await getMessage(h, account.key, sent.id)).status, 'delivered')
})

test('4xx answers are failures too (400, 404, 429)', async (t) => {
  for (const status of [400, 404, 429]) {
    const { h, receiver, account } = await setup(t, inTurn(status), 1)
    const sent = await sendMessage(h, account.key, `answered ${status}`)
    await h.worker.runOnce()
    assert.equal(receiver.received.length, 1)
    assert.equal((await getMessage(h, account.key, sent.id)).status, 'failed', `answered ${status}`)
  }
})

test('a redirect is a failure, and is not followed', async (t) => {
  for (const status of [301, 302, 303, 307, 308]) {
    const { h, receiver, account } = await setup(t, inTurn({ status, headers: { location: '/elsewhere' } }, 200), 2)
    const sent = await sendMessage(h, account.key, `redirected ${status}`)
    await h.worker.runOnce()
    assert.deepEqual(
      receiver.received.map((r) => [r.method, r.url]),
      [['POST', '/hooks/messages']],
      `${status}: the redirect was followed`,
    )
    assert.equal((await getMessage(h, account.key, sent.id)).status, 'queued', `${status} counted as delivered`)
  }
})

test('a receiver nobody listens on: the attempt fails and is retried, then failed', async (t) => {
  const port = await freePort()
  const h = await startMessagesHarness(t, {
    env: webhookEnv(`http://127.0.0.1:${port}/hooks`, newWebhookSecret(), {
      MESSAGES_WEBHOOK_MAX_ATTEMPTS: '2',
      MESSAGES_RETRY_SCHEDULE: SCHEDULE,
    }),
  })
  const { key } = await h.newAccount()
  const sent = await sendMessage(h, key, 'nobody home')
  assert.equal(await h.worker.runOnce(), 1)
  assert.equal((await getMessage(h, key, sent.id)).status, 'queued')
  h.clock.advance(BASE_MS)
  assert.equal(await h.worker.runOnce(), 1)
  assert.equal((await getMessage(h, key, sent.id)).status, 'failed')
})

test('a failing message does not hold back the others: they are delivered meanwhile', async (t) => {
  const { h, receiver, account } = await setup(t, (r) => (r.body.includes('poison') ? 500 : 200), 3)
  const poison = await sendMessage(h, account.key, 'poison')
  const fine = await sendMessage(h, account.key, 'fine')
  assert.equal(await h.worker.runOnce(), 2)
  assert.equal((await getMessage(h, account.key, poison.id)).status, 'queued')
  assert.equal((await getMessage(h, account.key, fine.id)).status, 'delivered')

  const later = await sendMessage(h, account.key, 'later')
  assert.equal(await h.worker.runOnce(), 1, 'only the new message is due; the failing one waits for its backoff')
  assert.equal((await getMessage(h, account.key, later.id)).status, 'delivered')
  assert.deepEqual(
    receiver.received.map((r) => r.headers['webhook-id']),
    [poison.id, fine.id, later.id],
  )
})
