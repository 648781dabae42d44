// A request cut off by a crash (the process died after claiming its Idempotency-Key, before storing the
// response) leaves its key in progress. No request can still be running under it after REQUEST_TIMEOUT_MS + 5 s,
// so from then on the retry the spec asks for runs; before, it gets 409 as while a request is really running.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { IdempotencyConflict } from '../../../src/modules/idempotency/idempotency.errors.js'
import { startHarness } from '../../helpers/harness.js'
import { petsOf } from '../../helpers/pets.js'
import { expectCode, inProgress, postPet, REX, roomy } from './support.js'

const REQUEST_TIMEOUT_MS = 2_000

test(
  'a key left in progress by a crash: ' + '409 until REQUEST_TIMEOUT_MS + 5 s, then the retry creates, once',
  async (t) => {
    const h = await startHarness(t, { config: { requestTimeoutMs: REQUEST_TIMEOUT_MS } })
    const { key, accountId } = await h.newAccount(roomy)
    await inProgress(h, accountId, 'cut-off', REX, key)
    const before = (await petsOf(h, accountId)).length
    h.clock.advance(REQUEST_TIMEOUT_MS + 5_000 - 1)
    expectCode(await postPet(h, key, '"cut-off"', REX), 409, 'idempotency_key_in_progress')
    assert.equal((await petsOf(h, accountId)).length, before)
    h.clock.advance(1)
    const retry = await postPet(h, key, '"cut-off"', REX)
    assert.equal(retry.statusCode, 201, retry.body)
    assert.equal(retry.headers['idempotent-replayed'], undefined)
    const again = await postPet(h, key, '"cut-off"', REX)
    assert.equal(again.headers['idempotent-replayed'], 'true')
    assert.equal(again.body, retry.body)
    assert.equal((await petsOf(h, accountId)).length, before + 1)
    // A different body is still the same key's misuse, crash or not.
    expectCode(await postPet(h, key, '"cut-off"', '{"name":"Max","categoryId":1}'), 422, 'idempotency_key_reused')
  },
)

test('the default REQUEST_TIMEOUT_MS (30 s): the key is free 35 s after the crash, not a minute', async (t) => {
  const h = await startHarness(t)
  const { key, accountId } = await h.newAccount(roomy)
  await inProgress(h, accountId, 'cut-off', REX, key)
  h.clock.advance(34_999)
  expectCode(await postPet(h, key, '"cut-off"', REX), 409, 'idempotency_key_in_progress')
  h.clock.advance(1)
  assert.equal((await postPet(h, key, '"cut-off"', REX)).statusCode, 201)
})

test(
  'a request that outlives the takeover does not create a second time: ' + 'its pet rolls back and it gets 409',
  async (t) => {
    const h = await startHarness(t, { config: { requestTimeoutMs: REQUEST_TIMEOUT_MS } })
    const { accountId } = await h.newAccount(roomy)
    const before = (await petsOf(h, accountId)).length
    const slow = h.services.idempotency.execute({ accountId, key: 'slow', fingerprint: 'f' }, async (trx) => {
      const pet = await h.services.pets.create({ accountId, pet: { name: 'Slow', categoryId: 1n } }, trx)
      // Meanwhile a retry took the key over: the row carries the retry's claim, no longer this request's.
      const later = new Date(h.clock.now() + REQUEST_TIMEOUT_MS + 5_000).toISOString()
      await trx.updateTable('idempotency_keys').set({ created_at: later }).where('account_id', '=', accountId).execute()
      return { status: 201, body: pet, location: `/v1/pets/${pet.id}` }
    })
    // The repository's own refusal; the API answers it 409 idempotency_key_in_progress (api/contract/domain-errors.ts).
    await assert.rejects(slow, (e: unknown) => e instanceof IdempotencyConflict && e.reason === 'in_progress')
    assert.equal((await petsOf(h, accountId)).length, before, 'the slow request created nothing')
  },
)
