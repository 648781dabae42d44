// Responses held until the end of their event-loop turn (src/http/send-batching.ts): none is sent before the
// turn ends, none waits for a later turn, and answers of a SQLite commit group go out in the group's own turn.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { createSendBatcher } from '../../src/api/platform/send-batching.js'

const request = {} as FastifyRequest
const reply = {} as FastifyReply

/** Runs `fn` in the check phase, as a commit group does, and resolves after the next turn's check phase. */
const inCheckPhase = (fn: (events: string[]) => void) =>
  new Promise<string[]>((resolve) => {
    const events: string[] = []
    setImmediate(() => {
      fn(events)
      // Queued from the check phase: runs in the next turn.
      setImmediate(() => {
        events.push('next turn')
        resolve(events)
      })
    })
  })

test('responses finished in one turn are sent together at its end, in the order they were finished', async () => {
  const batcher = createSendBatcher()
  const sent: string[] = []
  for (const name of ['a', 'b', 'c'])
    batcher.onSend(request, reply, name, (_error, payload) => void sent.push(payload as string))
  assert.deepEqual(sent, [], 'nothing is sent before the turn ends')
  await new Promise((resolve) => setImmediate(resolve))
  assert.deepEqual(sent, ['a', 'b', 'c'])
})

test(
  "the answers of a commit group are sent in the group's own turn, " + 'once the promises it settled have run',
  async () => {
    const batcher = createSendBatcher()
    const events = await inCheckPhase((events) => {
      const answers = [1, 2, 3].map((n) => Promise.resolve(n))
      batcher.flushWhenSettled()
      for (const answer of answers) {
        // A few awaits between the group's answer and the send, as a route handler has.
        void answer.then(async (n) => {
          await null
          await null
          batcher.onSend(request, reply, n, () => void events.push(`sent ${n}`))
        })
      }
    })
    assert.deepEqual(events, ['sent 1', 'sent 2', 'sent 3', 'next turn'])
  },
)

test('a response finished in the check phase without a group is sent in the next turn, not lost', async () => {
  const batcher = createSendBatcher()
  const events = await inCheckPhase((events) => batcher.onSend(request, reply, 'x', () => void events.push('sent')))
  assert.deepEqual(events, ['sent', 'next turn'])
})

test(
  "a send that throws becomes that request's error (as " + 'Fastify does for async onSend hooks); the others still go',
  async () => {
    const batcher = createSendBatcher()
    const calls: unknown[][] = []
    batcher.onSend(request, reply, 'bad', (...args) => {
      calls.push(['bad', ...args])
      if (args[0] == null) throw new Error('invalid header')
    })
    batcher.onSend(request, reply, 'good', (...args) => void calls.push(['good', ...args]))
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(calls.length, 3)
    assert.deepEqual(calls[0], ['bad', null, 'bad'])
    assert.equal(calls[1]![0], 'bad')
    assert.match(String(calls[1]![1]), /invalid header/)
    assert.deepEqual(calls[2], ['good', null, 'good'])
  },
)
