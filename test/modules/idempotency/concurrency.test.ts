// Simultaneous retries over real sockets: however they interleave, one pet is created; every other request
// gets either the replay of that response or 409 idempotency_key_in_progress.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startHarness } from '../../helpers/harness.js'
import { petsOf } from '../../helpers/pets.js'
import { REX, roomy } from './support.js'

test('20 simultaneous POSTs with one key and body: one pet, the others replay it or get 409', async (t) => {
  const h = await startHarness(t, { listen: true })
  const { key, accountId } = await h.newAccount(roomy)
  const responses = await Promise.all(
    Array.from({ length: 20 }, () =>
      fetch(`${h.baseUrl}/v1/pets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': '"burst"' },
        body: REX,
      }),
    ),
  )
  const results = await Promise.all(
    responses.map(async (r) => ({
      status: r.status,
      replayed: r.headers.get('idempotent-replayed'),
      body: await r.text(),
    })),
  )
  const created = results.filter((r) => r.status === 201 && r.replayed === null)
  assert.equal(created.length, 1, JSON.stringify(results.map((r) => [r.status, r.replayed])))
  for (const r of results) {
    if (r.status === 201) assert.equal(r.body, created[0]!.body)
    else {
      assert.equal(r.status, 409, r.body)
      assert.equal(JSON.parse(r.body).code, 'idempotency_key_in_progress')
    }
  }
  assert.equal((await petsOf(h, accountId)).length, 1)
})
