// Idempotency-Key errors: a reused key with another body (422), a key still in progress (409), a malformed
// key (400); a request that fails does not use its key up.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { refuseInserts } from '../../helpers/backend.js'
import { startHarness } from '../../helpers/harness.js'
import { petsOf } from '../../helpers/pets.js'
import { limitHeaders } from '../limits/support.js'
import { expectCode, inProgress, keyRows, postPet, REX, roomy } from './support.js'

test(
  'same key, different body: 422 idempotency_key_reused; ' + 'nothing is created and the first response still replays',
  async (t) => {
    const h = await startHarness(t)
    const { key, accountId } = await h.newAccount(roomy)
    const first = await postPet(h, key, '"k"', REX)
    for (const other of [
      '{"name":"Max","categoryId":7,"status":"available"}',
      '{"name":"Rex","categoryId":7}',
      '{"name":"Rex","categoryId":8,"status":"available"}',
    ]) {
      const res = await postPet(h, key, '"k"', other)
      expectCode(res, 422, 'idempotency_key_reused')
      limitHeaders(res)
    }
    assert.equal((await petsOf(h, accountId)).length, 1)
    const again = await postPet(h, key, '"k"', REX)
    assert.equal(again.body, first.body)
    assert.equal(again.headers['idempotent-replayed'], 'true')
  },
)

test(
  'while the first request with the key is in progress: ' + '409 idempotency_key_in_progress, nothing created',
  async (t) => {
    const h = await startHarness(t)
    const { key, accountId } = await h.newAccount(roomy)
    await inProgress(h, accountId, 'busy', REX, key)
    const before = (await petsOf(h, accountId)).length
    h.clock.advance(34_999) // REQUEST_TIMEOUT_MS (30 s by default) + 5 s, less 1 ms
    const res = await postPet(h, key, '"busy"', REX)
    expectCode(res, 409, 'idempotency_key_in_progress')
    limitHeaders(res)
    assert.equal((await petsOf(h, accountId)).length, before)
    const other = await postPet(h, key, '"busy"', '{"name":"Max","categoryId":1}')
    expectCode(other, 422, 'idempotency_key_reused')
  },
)

test(
  'a record left in progress for REQUEST_TIMEOUT_MS + 5 s (35 s by default: ' +
    'a crashed request) is taken over by the retry',
  async (t) => {
    const h = await startHarness(t)
    const { key, accountId } = await h.newAccount(roomy)
    await inProgress(h, accountId, 'crashed', REX, key)
    h.clock.advance(35_000)
    const res = await postPet(h, key, '"crashed"', REX)
    assert.equal(res.statusCode, 201, res.body)
    assert.equal(res.headers['idempotent-replayed'], undefined)
    const replay = await postPet(h, key, '"crashed"', REX)
    assert.equal(replay.headers['idempotent-replayed'], 'true')
    assert.equal(replay.body, res.body)
  },
)

test(
  'a failed request does not use its key up: ' + 'a 400 body, then the corrected body with the same key creates',
  async (t) => {
    const h = await startHarness(t)
    const { key, accountId } = await h.newAccount(roomy)
    for (const bad of ['{"name":"Rex"}', '{"name":"Rex","categoryId":"seven"}', '{not json', '']) {
      const res = await postPet(h, key, '"retry-me"', bad)
      assert.equal(res.statusCode, 400, res.body)
    }
    assert.deepEqual(await keyRows(h), [])
    const ok = await postPet(h, key, '"retry-me"', REX)
    assert.equal(ok.statusCode, 201)
    assert.equal(ok.headers['idempotent-replayed'], undefined)
    assert.equal((await postPet(h, key, '"retry-me"', REX)).headers['idempotent-replayed'], 'true')
    assert.equal((await petsOf(h, accountId)).length, 1)
  },
)

test(
  'a request that fails inside (500, nothing committed) frees its key: ' + 'the retry runs and creates the pet',
  async (t) => {
    const h = await startHarness(t)
    const { key, accountId } = await h.newAccount(roomy)
    const allow = await refuseInserts(h.handle.db, 'pets')
    const failed = await postPet(h, key, '"unlucky"', REX)
    expectCode(failed, 500, 'internal_error')
    assert.deepEqual(await keyRows(h), [], 'no record is left in progress')
    await allow()
    const retry = await postPet(h, key, '"unlucky"', REX)
    assert.equal(retry.statusCode, 201, retry.body)
    assert.equal(retry.headers['idempotent-replayed'], undefined)
    assert.equal((await petsOf(h, accountId)).length, 1)
  },
)

const MALFORMED: [string, string | string[]][] = [
  ['empty', ''],
  ['only white space', '   '],
  ['256 characters', 'k'.repeat(256)],
  ['256 characters, quoted', `"${'k'.repeat(256)}"`],
  ['an empty quoted string', '""'],
  ['a control character', 'a\u0001b'],
  ['a tab inside', 'a\tb'],
  ['a space inside a bare key', 'a b'],
  ['a non-ASCII character', 'clé'],
  ['a non-ASCII character, quoted', '"clé"'],
  ['an opening quote only', '"abc'],
  ['a closing quote only', 'abc"'],
  ['a stray quote inside a bare key', 'a"b'],
  ['an unescaped quote inside a quoted key', '"a"b"'],
  ['a dangling escape', '"abc\\"'],
  ['two Idempotency-Key headers', ['"a"', '"b"']],
]

for (const [what, value] of MALFORMED) {
  test(`a malformed key (${what}): 400 invalid_idempotency_key and nothing created`, async (t) => {
    const h = await startHarness(t)
    const { key, accountId } = await h.newAccount(roomy)
    const res = await postPet(h, key, value)
    assert.match(expectCode(res, 400, 'invalid_idempotency_key').message, /Idempotency-Key/)
    assert.deepEqual(await petsOf(h, accountId), [])
    assert.deepEqual(await keyRows(h), [])
  })
}
