// Exactness under concurrency, over real sockets: 300 simultaneous requests on one free key admit exactly 60.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startHarness } from '../../helpers/harness.js'
import { petsOf } from '../../helpers/pets.js'
import { usedOf } from './support.js'

async function burst(url: string, n: number, init: RequestInit) {
  const responses = await Promise.all(Array.from({ length: n }, () => fetch(url, init)))
  return Promise.all(responses.map(async (r) => ({ status: r.status, body: (await r.json()) as { code?: string } })))
}

test('300 simultaneous POSTs with one free key: exactly 60 pets are created, the other 240 get 429', async (t) => {
  const h = await startHarness(t, { listen: true, now: new Date('2027-01-01T00:00:30Z') })
  const { key, accountId } = await h.newAccount()
  const results = await burst(`${h.baseUrl}/v1/pets`, 300, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: '{"name":"Rex","categoryId":1}',
  })
  const statuses = results.map((r) => r.status)
  assert.equal(statuses.filter((s) => s === 201).length, 60)
  assert.equal(statuses.filter((s) => s === 429).length, 240)
  for (const r of results.filter((x) => x.status === 429))
    assert.ok(r.body.code === 'rate_limit_exceeded' || r.body.code === 'temporarily_banned', r.body.code)
  assert.deepEqual(await usedOf(h, accountId), [60, 60])
  assert.equal((await petsOf(h, accountId)).length, 60)
})

test('300 simultaneous GETs with one free key: exactly 60 get 200', async (t) => {
  const h = await startHarness(t, { listen: true, now: new Date('2027-01-01T00:00:30Z') })
  const { key } = await h.newAccount()
  const results = await burst(`${h.baseUrl}/v1/pets`, 300, { headers: { authorization: `Bearer ${key}` } })
  assert.equal(results.filter((r) => r.status === 200).length, 60)
  assert.equal(results.filter((r) => r.status === 429).length, 240)
})

test('300 simultaneous bad-key requests from one address: exactly 60 get 401, the rest 429', async (t) => {
  const h = await startHarness(t, { listen: true, now: new Date('2027-01-01T00:00:30Z') })
  const results = await burst(`${h.baseUrl}/v1/pets`, 300, { headers: { authorization: 'Bearer ps_test_guess' } })
  assert.equal(results.filter((r) => r.status === 401).length, 60)
  assert.equal(results.filter((r) => r.status === 429).length, 240)
})
