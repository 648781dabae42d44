// Idempotency keys are scoped to the account: another account using the same key runs its own request and
// never sees, replays or blocks the first account's response.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startHarness } from '../../helpers/harness.js'
import { petsOf } from '../../helpers/pets.js'
import { expectCode, keyRows, postPet, REX, roomy } from './support.js'
import { testActor } from '../../helpers/actors.js'

test("account B with A's key and the same body creates its own pet; A's replay is unchanged", async (t) => {
  const h = await startHarness(t)
  const a = await h.newAccount(roomy)
  const b = await h.newAccount(roomy)
  const first = await postPet(h, a.key, '"shared-key"', REX)
  const theirs = await postPet(h, b.key, '"shared-key"', REX)
  assert.equal(theirs.statusCode, 201)
  assert.equal(theirs.headers['idempotent-replayed'], undefined, "B does not get A's stored response")
  assert.notEqual(theirs.json().id, first.json().id)
  assert.notEqual(theirs.headers.location, first.headers.location)
  assert.equal((await petsOf(h, a.accountId)).length, 1)
  assert.equal((await petsOf(h, b.accountId)).length, 1)

  const replayA = await postPet(h, a.key, '"shared-key"', REX)
  const replayB = await postPet(h, b.key, '"shared-key"', REX)
  assert.equal(replayA.body, first.body)
  assert.equal(replayB.body, theirs.body)
  for (const r of [replayA, replayB]) assert.equal(r.headers['idempotent-replayed'], 'true')
})

test("account B with A's key and another body is not told the key is used (no 422 across accounts)", async (t) => {
  const h = await startHarness(t)
  const a = await h.newAccount(roomy)
  const b = await h.newAccount(roomy)
  await postPet(h, a.key, '"k"', REX)
  const res = await postPet(h, b.key, '"k"', '{"name":"Max","categoryId":2}')
  assert.equal(res.statusCode, 201, res.body)
  assert.equal(res.json().name, 'Max')
})

test('two keys of one account share its idempotency keys (the scope is the account, not the API key)', async (t) => {
  const h = await startHarness(t)
  const a = await h.newAccount(roomy)
  const second = await h.services.accounts.createApiKey({
    actor: testActor,
    accountId: a.accountId,
    environment: 'test',
  })
  const first = await postPet(h, a.key, '"k"', REX)
  const again = await postPet(h, second.key, '"k"', REX)
  assert.equal(again.headers['idempotent-replayed'], 'true')
  assert.equal(again.body, first.body)
  assert.equal((await petsOf(h, a.accountId)).length, 1)
})

test('a request without a valid key never reaches the idempotency store', async (t) => {
  const h = await startHarness(t)
  const a = await h.newAccount(roomy)
  await postPet(h, a.key, '"k"', REX)
  const res = await postPet(h, 'ps_test_forged', '"k"', REX)
  expectCode(res, 401, 'invalid_api_key')
  assert.equal(res.headers['idempotent-replayed'], undefined)
  assert.equal((await keyRows(h)).length, 1)
})
