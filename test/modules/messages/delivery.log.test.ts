// Delivery through the default `log` sink (issue 4): the worker takes queued messages oldest first, writes
// each as one structured line in the service log, and marks it delivered. Driven with `runOnce`. The line has the
// message's text only with MESSAGES_LOG_TEXT=on; by default its length (customer content stays out of the log).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import {
  getMessage,
  messageRows,
  sendMessage,
  startMessagesHarness,
  type LogLine,
  type MessageJson,
  type MessagesHarness,
} from '../../helpers/messages-harness.js'

const deliveredLines = (h: MessagesHarness): LogLine[] => h.log().filter((line) => line.msg === 'message delivered')

const withText = { env: { MESSAGES_LOG_TEXT: 'on' } }

test('after runOnce the message is delivered (GET shows it) and the log has one structured line with it', async (t) => {
  const h = await startMessagesHarness(t, withText)
  const { key, accountId } = await h.newAccount()
  const sent = await sendMessage(h, key, 'Hello, log 👋 "quoted"\nsecond line')
  assert.deepEqual(deliveredLines(h), [], 'nothing is delivered before the worker runs')

  assert.equal(await h.worker.runOnce(), 1)
  assert.deepEqual(await getMessage(h, key, sent.id), { ...sent, status: 'delivered' })

  const lines = deliveredLines(h)
  assert.equal(lines.length, 1, JSON.stringify(h.log()))
  const [line] = lines as [LogLine]
  assert.equal(line.level, 30, 'info')
  assert.equal(line.messageId, sent.id)
  assert.equal(line.accountId, accountId)
  assert.equal(line.message, sent.message)
  assert.equal(line.createdAt, sent.createdAt)
})

test('by default the line has the message id and length, never its text', async (t) => {
  const h = await startMessagesHarness(t)
  const { key, accountId } = await h.newAccount()
  const sent = await sendMessage(h, key, 'My card is 4111 1111 1111 1111')
  await h.worker.runOnce()
  const [line, ...more] = deliveredLines(h)
  assert.equal(more.length, 0)
  assert.deepEqual(
    { ...line, time: 0, pid: 0, hostname: '' },
    {
      level: 30,
      time: 0,
      pid: 0,
      hostname: '',
      messageId: sent.id,
      accountId,
      createdAt: sent.createdAt,
      length: sent.message.length,
      msg: 'message delivered',
    },
  )
  assert.ok(!h.rawLog().join('').includes('4111'), 'the text is nowhere in the log')
})

test('the line is one line of JSON even when the message has newlines', async (t) => {
  const h = await startMessagesHarness(t, withText)
  const { key } = await h.newAccount()
  await sendMessage(h, key, 'one\ntwo\r\nthree')
  await h.worker.runOnce()
  const writes = h.rawLog().filter((raw) => raw.includes('"message delivered"'))
  assert.equal(writes.length, 1, h.rawLog().join(''))
  const [write] = writes as [string]
  assert.match(write, /^\{[^\n\r]*\}\n$/, 'one line, ending in a newline')
  assert.equal((JSON.parse(write) as LogLine).message, 'one\ntwo\r\nthree')
})

test('delivered once: later runs find nothing to do and log nothing more', async (t) => {
  const h = await startMessagesHarness(t)
  const { key } = await h.newAccount()
  await sendMessage(h, key, 'once')
  assert.equal(await h.worker.runOnce(), 1)
  h.clock.advance(24 * 60 * 60 * 1000)
  assert.equal(await h.worker.runOnce(), 0)
  assert.equal(await h.worker.runOnce(), 0)
  assert.equal(deliveredLines(h).length, 1)
  const [row] = await messageRows(h)
  assert.equal(row!.status, 'delivered')
  assert.equal(Number(row!.attempts), 1)
  assert.equal(row!.delivered_at, new Date(h.clock.now() - 24 * 60 * 60 * 1000).toISOString())
})

test('messages are delivered oldest first, across accounts, in one run', async (t) => {
  const h = await startMessagesHarness(t)
  const alice = await h.newAccount({ name: 'alice' })
  const bob = await h.newAccount({ name: 'bob' })
  const sent: MessageJson[] = []
  for (let i = 0; i < 6; i++) {
    sent.push(await sendMessage(h, i % 2 === 0 ? alice.key : bob.key, `message ${i}`))
    h.clock.advance(1)
  }
  assert.equal(await h.worker.runOnce(), 6)
  assert.deepEqual(
    deliveredLines(h).map((l) => l.messageId),
    sent.map((m) => m.id),
  )
})

test('oldest first, one at a time: with a batch of 1 each run delivers the oldest still queued', async (t) => {
  const h = await startMessagesHarness(t, { batchSize: 1, ...withText })
  const { key } = await h.newAccount()
  const sent: MessageJson[] = []
  for (const text of ['first', 'second', 'third']) sent.push(await sendMessage(h, key, text))
  for (let run = 0; run < 3; run++) {
    assert.equal(await h.worker.runOnce(), 1)
    const statuses = await Promise.all(sent.map(async (m) => (await getMessage(h, key, m.id)).status))
    assert.deepEqual(
      statuses,
      sent.map((_, i) => (i <= run ? 'delivered' : 'queued')),
      `after run ${run + 1}`,
    )
  }
  assert.equal(await h.worker.runOnce(), 0)
  assert.deepEqual(
    deliveredLines(h).map((l) => l.message),
    ['first', 'second', 'third'],
  )
})

test('a message accepted after a run waits for the next run', async (t) => {
  const h = await startMessagesHarness(t)
  const { key } = await h.newAccount()
  const first = await sendMessage(h, key, 'early')
  await h.worker.runOnce()
  const second = await sendMessage(h, key, 'late')
  assert.equal((await getMessage(h, key, second.id)).status, 'queued')
  assert.equal(await h.worker.runOnce(), 1)
  assert.equal((await getMessage(h, key, first.id)).status, 'delivered')
  assert.equal((await getMessage(h, key, second.id)).status, 'delivered')
})
