// POST /messages accepted (spec 4.4, 2.6; issue 4): 202 with exactly {id, message, status: "queued",
// createdAt}, a Location to the message, rate-limit headers, and the row committed before the answer.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import SQLite from 'better-sqlite3'
import { tempDir } from '../../helpers/cli.js'
import { bearer } from '../../helpers/harness.js'
import {
  getMessage,
  messageRows,
  postMessage,
  startMessagesHarness,
  type MessageJson,
} from '../../helpers/messages-harness.js'

const NOW = new Date('2027-03-04T05:06:07.089Z')

test(
  '202 with exactly {id, message, status: ' + '"queued", createdAt}, createdAt = the clock in ISO 8601 UTC',
  async (t) => {
    const h = await startMessagesHarness(t, { now: NOW })
    const { key } = await h.newAccount()
    const response = await postMessage(h, key, { message: 'Hello, world' })
    assert.equal(response.statusCode, 202, response.body)
    assert.match(String(response.headers['content-type']), /^application\/json/)
    const body = response.json<MessageJson>()
    assert.deepEqual(Object.keys(body).sort(), ['createdAt', 'id', 'message', 'status'])
    assert.equal(body.message, 'Hello, world')
    assert.equal(body.status, 'queued')
    assert.match(body.id, /^msg_[A-Za-z0-9]+$/)
    assert.match(body.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/)
    assert.equal(body.createdAt, NOW.toISOString())
  },
)

test('Location: /messages/{id}, and following it shows the same message', async (t) => {
  const h = await startMessagesHarness(t)
  const { key } = await h.newAccount()
  const response = await postMessage(h, key, { message: 'follow me' })
  assert.equal(response.statusCode, 202, response.body)
  const body = response.json<MessageJson>()
  assert.equal(response.headers.location, `/messages/${body.id}`)
  const followed = await h.app.inject({ url: response.headers.location, headers: bearer(key) })
  assert.equal(followed.statusCode, 200, followed.body)
  assert.deepEqual(followed.json(), body)
})

test('the 202 carries the rate-limit headers of the account (free plan: 60 a minute)', async (t) => {
  const h = await startMessagesHarness(t)
  const { key } = await h.newAccount()
  const first = await postMessage(h, key, { message: 'one' })
  const second = await postMessage(h, key, { message: 'two' })
  for (const [response, remaining] of [
    [first, '59'],
    [second, '58'],
  ] as const) {
    assert.equal(response.statusCode, 202, response.body)
    assert.equal(response.headers['x-ratelimit-limit'], '60')
    assert.equal(response.headers['x-ratelimit-remaining'], remaining)
    const reset = Number(response.headers['x-ratelimit-reset'])
    assert.ok(
      Number.isInteger(reset) && reset * 1000 > h.clock.now(),
      `X-RateLimit-Reset: ${String(response.headers['x-ratelimit-reset'])}`,
    )
  }
})

// 4096 characters of any kind fit in the 64 KiB body limit, even as JSON \uXXXX escapes of emoji (12 bytes each).
test('text round-trips exactly: Unicode, quotes, newlines, surrounding spaces, 4096 characters', async (t) => {
  const h = await startMessagesHarness(t)
  const { key } = await h.newAccount()
  for (const text of [
    'Grüße, 世界 👋 "quoted" \\ back\nslash\ttab',
    '  padded  ',
    'x'.repeat(4096),
    'é'.repeat(4096),
    '世'.repeat(4096),
    '🐶'.repeat(4096),
  ]) {
    const response = await postMessage(h, key, { message: text })
    assert.equal(response.statusCode, 202, `${text.slice(0, 20)}…: ${response.body}`)
    const sent = response.json<MessageJson>()
    assert.equal(sent.message, text)
    assert.equal((await getMessage(h, key, sent.id)).message, text)
  }
})

test(
  "4096 emoji sent as \\uXXXX escapes (as Python's " + 'json.dumps does) are accepted, not refused as too large',
  async (t) => {
    const h = await startMessagesHarness(t)
    const { key } = await h.newAccount()
    const escaped = `{"message":"${'\\ud83d\\udc36'.repeat(4096)}"}`
    assert.ok(Buffer.byteLength(escaped) > 16 * 1024)
    const response = await postMessage(h, key, escaped)
    assert.equal(response.statusCode, 202, response.body.slice(0, 200))
    assert.equal(response.json<MessageJson>().message, '🐶'.repeat(4096))
  },
)

test('Content-Type: application/json; charset=utf-8 is accepted', async (t) => {
  const h = await startMessagesHarness(t)
  const { key } = await h.newAccount()
  const response = await postMessage(
    h,
    key,
    { message: 'charset' },
    { 'content-type': 'application/json; charset=utf-8' },
  )
  assert.equal(response.statusCode, 202, response.body)
})

test('every message gets its own id, and one row each in the database as queued', async (t) => {
  const h = await startMessagesHarness(t)
  const { key, accountId } = await h.newAccount()
  const sent: MessageJson[] = []
  for (let i = 0; i < 5; i++) {
    const response = await postMessage(h, key, { message: `m${i}` })
    assert.equal(response.statusCode, 202, response.body)
    sent.push(response.json<MessageJson>())
  }
  assert.equal(new Set(sent.map((m) => m.id)).size, 5)
  const rows = await messageRows(h)
  assert.deepEqual(
    rows.map((r) => [r.id, r.account_id, r.message, r.status]),
    sent.map((m) => [m.id, accountId, m.message, 'queued']),
  )
})

test('the row is committed when the 202 arrives: another connection to the database file reads it', async (t) => {
  const { dir } = tempDir(t, 'petstore-messages-')
  const file = join(dir, 'petstore.db')
  const h = await startMessagesHarness(t, { config: { databaseUrl: file } })
  const { key, accountId } = await h.newAccount()
  const other = new SQLite(file, { readonly: true })
  t.after(() => other.close())
  const read = other.prepare('SELECT id, account_id, message, status, created_at FROM messages WHERE id = ?')

  const response = await postMessage(h, key, { message: 'durable' })
  assert.equal(response.statusCode, 202, response.body)
  const body = response.json<MessageJson>()
  // Read at once, from a connection that only ever sees committed data.
  assert.deepEqual(
    { ...(read.get(body.id) as object) },
    { id: body.id, account_id: accountId, message: 'durable', status: 'queued', created_at: body.createdAt },
  )
})
