// One account quota over both interfaces (issue 4): the pet store app and the messages app are built on
// the same services (one rate-limit store), so a free account's 60 requests a minute are shared.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { bearer } from '../../helpers/harness.js'
import { expectError } from '../../helpers/http.js'
import { messageRows, postMessage, startMessagesHarness } from '../../helpers/messages-harness.js'

type Injected = Awaited<ReturnType<FastifyInstance['inject']>>

const flat = (response: Injected) => ({
  statusCode: response.statusCode,
  headers: Object.fromEntries(
    Object.entries(response.headers).map(([k, v]) => [k, v === undefined ? undefined : String(v)]),
  ),
  body: response.body,
})

function assert429(response: Injected) {
  expectError(flat(response), 429, 'rate_limit_exceeded')
  assert.equal(response.headers['x-ratelimit-limit'], '60')
  assert.equal(response.headers['x-ratelimit-remaining'], '0')
  assert.match(String(response.headers['x-ratelimit-reset']), /^\d+$/)
  assert.match(String(response.headers['retry-after']), /^[1-9]\d*$/)
}

async function setup(t: Parameters<typeof startMessagesHarness>[0]) {
  // Start on a minute boundary so the 60 requests fall in one window.
  const h = await startMessagesHarness(t, { pets: true, now: new Date('2027-01-01T00:00:00Z') })
  const account = await h.newAccount()
  const pets = h.pets!
  const listPets = () => pets.inject({ url: '/v1/pets', headers: bearer(account.key) })
  const send = (i: number) => postMessage(h, account.key, { message: `m${i}` })
  return { h, account, listPets, send }
}

test(
  '30 on the pet store + 30 on messages use up the 60; ' + 'the 61st on messages is 429 with the limit headers',
  async (t) => {
    const { h, listPets, send } = await setup(t)
    for (let i = 0; i < 30; i++) {
      const response = await listPets()
      assert.equal(response.statusCode, 200, `pets request ${i + 1}: ${response.body}`)
      assert.equal(response.headers['x-ratelimit-remaining'], String(59 - i))
    }
    for (let i = 0; i < 30; i++) {
      const response = await send(i)
      assert.equal(response.statusCode, 202, `messages request ${i + 1}: ${response.body}`)
      // The count goes on from where the pet store left it.
      assert.equal(response.headers['x-ratelimit-remaining'], String(29 - i))
    }
    assert429(await send(60))
    assert.equal((await messageRows(h)).length, 30, 'the refused message is not stored')
  },
)

test('30 on messages + 30 on the pet store; the 61st on the pet store is 429 with the limit headers', async (t) => {
  const { listPets, send } = await setup(t)
  for (let i = 0; i < 30; i++) assert.equal((await send(i)).statusCode, 202)
  for (let i = 0; i < 30; i++) assert.equal((await listPets()).statusCode, 200)
  assert429(await listPets())
})

test('once the quota is used up on one interface, both refuse, and both admit again in the next minute', async (t) => {
  const { h, listPets, send } = await setup(t)
  for (let i = 0; i < 60; i++)
    assert.equal((await (i % 2 === 0 ? listPets() : send(i))).statusCode, i % 2 === 0 ? 200 : 202)
  assert429(await listPets())
  assert429(await send(61))
  h.clock.advance(60_000)
  assert.equal((await send(62)).statusCode, 202)
  assert.equal((await listPets()).statusCode, 200)
})

test('the quota is per account: another account is not affected', async (t) => {
  const { h, send } = await setup(t)
  for (let i = 0; i < 60; i++) assert.equal((await send(i)).statusCode, 202)
  assert429(await send(60))
  const other = await h.newAccount({ name: 'other' })
  const response = await postMessage(h, other.key, { message: 'mine' })
  assert.equal(response.statusCode, 202, response.body)
  assert.equal(response.headers['x-ratelimit-remaining'], '59')
})

test('GET /messages/{id} counts against the same quota', async (t) => {
  const { h, account, listPets, send } = await setup(t)
  const first = await send(0)
  const { id } = first.json<{ id: string }>()
  for (let i = 0; i < 29; i++) assert.equal((await listPets()).statusCode, 200)
  for (let i = 0; i < 30; i++)
    assert.equal((await h.app.inject({ url: `/messages/${id}`, headers: bearer(account.key) })).statusCode, 200)
  assert429(await h.app.inject({ url: `/messages/${id}`, headers: bearer(account.key) }))
})
