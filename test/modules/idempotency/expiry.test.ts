// Idempotency records live 24 hours: within them the response is replayed, after them the key is free again,
// and purgeExpired() deletes the expired records.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startHarness } from '../../helpers/harness.js'
import { petsOf } from '../../helpers/pets.js'
import { keyRows, postPet, REX, roomy } from './support.js'

const DAY = 86_400_000

test('just before 24 h the response is replayed; at 24 h the key is free again and a new pet is created', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T09:00:00Z') })
  const { key, accountId } = await h.newAccount(roomy)
  const first = await postPet(h, key, '"daily"', REX)
  h.clock.advance(DAY - 1)
  const replay = await postPet(h, key, '"daily"', REX)
  assert.equal(replay.headers['idempotent-replayed'], 'true')
  assert.equal(replay.body, first.body)
  h.clock.advance(1)
  const fresh = await postPet(h, key, '"daily"', REX)
  assert.equal(fresh.statusCode, 201)
  assert.equal(fresh.headers['idempotent-replayed'], undefined)
  assert.notEqual(fresh.json().id, first.json().id)
  assert.equal((await petsOf(h, accountId)).length, 2)
  const again = await postPet(h, key, '"daily"', REX)
  assert.equal(again.body, fresh.body, 'the new request is the one replayed from now on')
})

test('after 24 h a key may be used with another body (no 422)', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount(roomy)
  await postPet(h, key, '"k"', REX)
  assert.equal((await postPet(h, key, '"k"', '{"name":"Max","categoryId":1}')).statusCode, 422)
  h.clock.advance(DAY)
  const res = await postPet(h, key, '"k"', '{"name":"Max","categoryId":1}')
  assert.equal(res.statusCode, 201, res.body)
  assert.equal(res.json().name, 'Max')
})

test('purgeExpired() deletes the records older than 24 h and keeps the others', async (t) => {
  const h = await startHarness(t, { now: new Date('2027-01-01T00:00:00Z') })
  const { key } = await h.newAccount(roomy)
  await postPet(h, key, '"old-1"', REX)
  await postPet(h, key, '"old-2"', REX)
  h.clock.advance(12 * 3600_000)
  await postPet(h, key, '"young"', REX)
  assert.equal(await h.services.idempotency.purgeExpired(), 0)
  assert.equal((await keyRows(h)).length, 3)
  h.clock.set(new Date('2027-01-02T00:00:00Z'))
  assert.equal(await h.services.idempotency.purgeExpired(), 2)
  assert.deepEqual(
    (await keyRows(h)).map((r) => r.idempotency_key),
    ['young'],
  )
  assert.equal(await h.services.idempotency.purgeExpired(), 0)
  const replay = await postPet(h, key, '"young"', REX)
  assert.equal(replay.headers['idempotent-replayed'], 'true', 'a live record survives the purge')
})
