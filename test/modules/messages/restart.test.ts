// Nothing accepted is lost (issue 4): messages accepted while no worker runs survive closing the app and
// the database; a new process (new services, new app, same file) delivers every one of them, oldest first.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { tempDir } from '../../helpers/cli.js'
import {
  getMessage,
  messageRows,
  sendMessage,
  startMessagesHarness,
  type MessageJson,
} from '../../helpers/messages-harness.js'

test('accepted with no worker, app and database closed, reopened: the worker delivers all of them', async (t) => {
  const { dir } = tempDir(t, 'petstore-messages-restart-')
  const file = join(dir, 'petstore.db')

  const before = await startMessagesHarness(t, { config: { databaseUrl: file } })
  const account = await before.newAccount()
  const sent: MessageJson[] = []
  for (let i = 0; i < 5; i++) {
    sent.push(await sendMessage(before, account.key, `before the restart ${i}`))
    before.clock.advance(10)
  }
  // No worker ran: every message is still queued when the process goes away.
  assert.deepEqual(
    (await messageRows(before)).map((r) => r.status),
    sent.map(() => 'queued'),
  )
  await before.close()

  const after = await startMessagesHarness(t, { config: { databaseUrl: file }, now: before.clock.now() + 60_000 })
  // The same key still works and still sees its queued messages.
  for (const m of sent) assert.deepEqual(await getMessage(after, account.key, m.id), m)

  assert.equal(await after.worker.runOnce(), 5)
  for (const m of sent) assert.deepEqual(await getMessage(after, account.key, m.id), { ...m, status: 'delivered' })
  assert.deepEqual(
    after
      .log()
      .filter((l) => l.msg === 'message delivered')
      .map((l) => l.messageId),
    sent.map((m) => m.id),
    'delivered oldest first',
  )
  assert.equal(await after.worker.runOnce(), 0)
})

test(
  'a message whose worker died mid-delivery (lease held) ' + 'is delivered after a restart once the lease runs out',
  async (t) => {
    const { dir } = tempDir(t, 'petstore-messages-lease-')
    const file = join(dir, 'petstore.db')

    const before = await startMessagesHarness(t, { config: { databaseUrl: file } })
    const account = await before.newAccount()
    const sent = await sendMessage(before, account.key, 'claimed, then the process died')
    // A worker claims the message and the process dies before it settles it.
    const claimed = await before.services.messages.claimDue({ limit: 10, leaseMs: 60_000 })
    assert.deepEqual(
      claimed.map((m) => m.id),
      [sent.id],
    )
    await before.close()

    const after = await startMessagesHarness(t, { config: { databaseUrl: file }, now: before.clock.now() + 1_000 })
    assert.equal(await after.worker.runOnce(), 0, 'the lease still holds: no second worker takes it')
    after.clock.advance(60_000)
    assert.equal(await after.worker.runOnce(), 1)
    assert.equal((await getMessage(after, account.key, sent.id)).status, 'delivered')
  },
)

test('a message in backoff keeps its schedule across a restart', async (t) => {
  const { dir } = tempDir(t, 'petstore-messages-backoff-')
  const file = join(dir, 'petstore.db')

  const before = await startMessagesHarness(t, { config: { databaseUrl: file } })
  const account = await before.newAccount()
  const sent = await sendMessage(before, account.key, 'retry me later')
  const [claimed] = await before.services.messages.claimDue({ limit: 10, leaseMs: 60_000 })
  await before.services.messages.markAttemptFailed(claimed!.seq, 'receiver down', before.clock.now() + 5_000)
  await before.close()

  const after = await startMessagesHarness(t, { config: { databaseUrl: file }, now: before.clock.now() + 4_999 })
  assert.equal(await after.worker.runOnce(), 0)
  assert.equal((await getMessage(after, account.key, sent.id)).status, 'queued')
  after.clock.advance(1)
  assert.equal(await after.worker.runOnce(), 1)
  assert.equal((await getMessage(after, account.key, sent.id)).status, 'delivered')
})
