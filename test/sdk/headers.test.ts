// @petstore/sdk's own headers: `defaultHeaders` on the client and `headers` on a call reach the request (a call's
// over the client's), against the real service; the headers the client sets itself (the key, the Idempotency-Key,
// the User-Agent …) cannot be set that way: a TypeError before anything is sent.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Petstore } from '../../sdk/src/index.js'
import { startHarness } from '../helpers/harness.js'

/** A fetch that records what each request carried, then sends it. */
function recordingFetch() {
  const sent: Array<Record<string, string>> = []
  const recording: typeof fetch = (input, init) => {
    sent.push(Object.fromEntries(new Headers(init?.headers).entries()))
    return fetch(input, init)
  }
  return { sent, fetch: recording }
}

test('defaultHeaders go with every call and a call adds its own headers; the client still sets its own', async (t) => {
  const h = await startHarness(t, { listen: true })
  const { key } = await h.newAccount()
  const { sent, fetch } = recordingFetch()
  const ps = new Petstore({
    apiKey: key,
    baseUrl: `${h.baseUrl}/v1`,
    fetch,
    defaultHeaders: { 'X-Trace-Id': 'trace-1', 'X-Tenant': 'default' },
  })
  await ps.pets.create({ name: 'Rex', categoryId: 1 }, { headers: { 'x-tenant': 'blue' }, idempotencyKey: 'abc' })
  await ps.pets.listPage()
  assert.equal(sent.length, 2)
  const [created, listed] = sent as [Record<string, string>, Record<string, string>]
  assert.equal(created['x-trace-id'], 'trace-1')
  assert.equal(created['x-tenant'], 'blue', "the call's header over the client's")
  assert.equal(created.authorization, `Bearer ${key}`)
  assert.equal(created['idempotency-key'], '"abc"')
  assert.match(created['user-agent'] ?? '', /^petstore-sdk\//)
  assert.equal(listed['x-tenant'], 'default', "the next call has the client's again")
})

test('the headers the client sets are refused in defaultHeaders and in a call, before anything is sent', async (t) => {
  const h = await startHarness(t, { listen: true })
  const { key } = await h.newAccount()
  const { sent, fetch } = recordingFetch()
  const baseUrl = `${h.baseUrl}/v1`
  for (const header of ['Authorization', 'idempotency-key', 'User-Agent', 'Content-Type', 'Accept'])
    assert.throws(
      () => new Petstore({ apiKey: key, baseUrl, fetch, defaultHeaders: { [header]: 'x' } }),
      (error: Error) => error instanceof TypeError && error.message.includes(header),
      header,
    )
  const ps = new Petstore({ apiKey: key, baseUrl, fetch })
  await assert.rejects(ps.pets.listPage({}, { headers: { authorization: 'Bearer other' } }), TypeError)
  await assert.rejects(
    ps.pets.create({ name: 'Rex', categoryId: 1 }, { headers: { 'Idempotency-Key': 'x' } }),
    TypeError,
  )
  await assert.rejects(ps.pets.listPage({}, { headers: { 'x-ok': 'line\r\nInjected: 1' } }), TypeError)
  await assert.rejects(ps.pets.listPage({}, { headers: { 'bad name': 'x' } }), TypeError)
  assert.equal(sent.length, 0, 'nothing was sent')
})
