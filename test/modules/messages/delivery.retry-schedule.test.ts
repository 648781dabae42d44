// The default retry schedule of webhook deliveries (MESSAGES_RETRY_SCHEDULE: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h,
// 10 h), with full jitter between one step and the one before, on the manual clock: a receiver down for an hour
// loses nothing however the jitter falls, retries come within their bands, and the schedule spans about a day.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { retryDelay } from '../../../src/kernel/retry-delay.js'
import {
  getMessage,
  messageRows,
  newWebhookSecret,
  sendMessage,
  startMessagesHarness,
  startReceiver,
  webhookEnv,
  type MessagesHarness,
} from '../../helpers/messages-harness.js'

const S = 1_000
const MIN = 60 * S
const H = 60 * MIN
const T0 = Date.parse('2027-01-01T00:00:00Z')

/** Runs the worker at every moment a retry is due (read from the queue) until the message settles. */
async function driveToEnd(h: MessagesHarness, key: string, id: string): Promise<string> {
  for (let step = 0; step < 20; step++) {
    await h.worker.runOnce()
    const [row] = await messageRows(h)
    if (row!.status !== 'queued') return row!.status
    h.clock.set(Number(row!.next_attempt_at))
  }
  return (await getMessage(h, key, id)).status
}

async function setup(t: Parameters<typeof startMessagesHarness>[0], random: () => number, downForMs: number) {
  let clockNow = () => 0
  // Down (503) until `downForMs` past the start, then up; each attempt's time on the manual clock is recorded.
  const attempts: number[] = []
  const receiver = await startReceiver(t, () => {
    attempts.push(clockNow() - T0)
    return clockNow() - T0 < downForMs ? 503 : 200
  })
  const h = await startMessagesHarness(t, { env: webhookEnv(receiver.url, newWebhookSecret()), now: T0, random })
  clockNow = () => h.clock.now()
  const account = await h.newAccount()
  return { h, account, attempts }
}

for (const [how, random] of [
  ['every jitter draw at its lowest (the retries as early as the schedule allows)', () => 0],
  ['every jitter draw at its highest', () => 1],
  ['random jitter', Math.random],
] as const) {
  test(`a receiver down for an hour loses nothing: ${how}`, async (t) => {
    const { h, account, attempts } = await setup(t, random, H)
    const sent = await sendMessage(h, account.key, 'patience')
    assert.equal(await driveToEnd(h, account.key, sent.id), 'delivered')
    assert.ok(attempts.at(-1)! >= H, 'delivered once the receiver was back')
    assert.ok(
      attempts.slice(0, -1).every((at) => at < H),
      'every earlier attempt was during the outage',
    )
    assert.ok(attempts.length <= 6, `${attempts.length} attempts: the hour is spent by the 5th retry at the latest`)
  })
}

test(
  'the default schedule: each retry within its band (full jitter ' +
    'between the step before and its own), about a day in all, then failed',
  async (t) => {
    const bands = [
      [0, 5 * S],
      [5 * S, 5 * MIN],
      [5 * MIN, 30 * MIN],
      [30 * MIN, 2 * H],
      [2 * H, 5 * H],
      [5 * H, 10 * H],
      [10 * H, 10 * H],
    ]
    for (const [i, [low, high]] of bands.entries()) {
      assert.equal(
        retryDelay([5 * S, 5 * MIN, 30 * MIN, 2 * H, 5 * H, 10 * H, 10 * H], i + 1, () => 0),
        low,
        `retry ${i + 1} at the earliest`,
      )
      assert.equal(
        retryDelay([5 * S, 5 * MIN, 30 * MIN, 2 * H, 5 * H, 10 * H, 10 * H], i + 1, () => 1),
        high,
        `retry ${i + 1} at the latest`,
      )
    }

    // Never answered: 8 attempts (MESSAGES_WEBHOOK_MAX_ATTEMPTS), the retries in their bands, then failed.
    const { h, account, attempts } = await setup(t, Math.random, Infinity)
    assert.deepEqual(h.config.webhookRetrySchedule, [5 * S, 5 * MIN, 30 * MIN, 2 * H, 5 * H, 10 * H, 10 * H])
    const sent = await sendMessage(h, account.key, 'never')
    assert.equal(await driveToEnd(h, account.key, sent.id), 'failed')
    assert.equal(attempts.length, 8)
    const gaps = attempts.slice(1).map((at, i) => at - attempts[i]!)
    gaps.forEach((gap, i) =>
      assert.ok(gap >= bands[i]![0]! && gap <= bands[i]![1]!, `retry ${i + 1} after ${gap} ms, outside ${bands[i]}`),
    )
    const span = attempts.at(-1)! - attempts[0]!
    assert.ok(span >= 17 * H + 35 * MIN && span <= 27 * H + 36 * MIN, `the retries span ${(span / H).toFixed(1)} h`)
  },
)

test('jitter spreads the retries of messages that failed together', async (t) => {
  const { h, account } = await setup(t, Math.random, Infinity)
  for (let i = 0; i < 10; i++) await sendMessage(h, account.key, `burst ${i}`)
  await h.worker.runOnce()
  const due = (await messageRows(h)).map((r) => Number(r.next_attempt_at) - T0)
  assert.ok(due.every((d) => d >= 0 && d <= 5 * S))
  assert.ok(new Set(due).size >= 8, `first retries at ${due.join(', ')} ms: not spread`)
})
