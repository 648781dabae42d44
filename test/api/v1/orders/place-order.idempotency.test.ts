// placeOrder honours Idempotency-Key exactly as createPet does (the one implementation, src/idempotency/): the
// same key and body replay the first 201, another body is 422, a key still running is 409, a refused request does
// not use its key up, and the stored response commits in the same transaction as the order.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ABANDON_GRACE_MS } from '../../../../src/modules/idempotency/idempotency.repository.js'
import { sql } from 'kysely'
import { bearer, startHarness, type Harness } from '../../../helpers/harness.js'
import { ordersOf } from '../../../helpers/orders.js'
import { createPet, roomyAccount } from '../../../helpers/pets.js'
import { limitHeaders } from '../../../modules/limits/support.js'
import { expectCode } from '../../../modules/idempotency/support.js'

async function setup(t: Parameters<typeof startHarness>[0]) {
  const h = await startHarness(t)
  const account = await roomyAccount(h)
  const pet = await createPet(h, account.key, { name: 'Rex', categoryId: 1 })
  const post = (idempotencyKey: string | undefined, payload: string) =>
    h.app.inject({
      method: 'POST',
      url: '/v1/store/orders',
      headers: {
        ...bearer(account.key),
        'content-type': 'application/json',
        ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
      },
      payload,
    })
  return { h, ...account, pet, post }
}

test(
  'same key and body (any key order or white space): ' + 'the first 201 again, Idempotent-Replayed, one order',
  async (t) => {
    const { h, accountId, pet, post } = await setup(t)
    const first = await post('"k1"', `{"petId":${pet.id},"quantity":2,"shipDate":"2026-12-01T12:00:00+02:00"}`)
    assert.equal(first.statusCode, 201, first.body)
    assert.equal(first.headers['idempotent-replayed'], undefined)
    h.clock.advance(60_000)
    const again = await post(
      '"k1"',
      ` { "shipDate" : "2026-12-01T12:00:00+02:00", "quantity": 2, "petId": ${pet.id} } `,
    )
    assert.equal(again.statusCode, 201)
    assert.equal(again.body, first.body, 'same body, createdAt included')
    assert.equal(again.headers.location, first.headers.location)
    assert.equal(again.headers['idempotent-replayed'], 'true')
    limitHeaders(again)
    assert.equal((await ordersOf(h, accountId)).length, 1)
    const bare = await post('k1', `{"petId":${pet.id},"quantity":2,"shipDate":"2026-12-01T12:00:00+02:00"}`)
    assert.equal(bare.body, first.body, 'the bare form of the key is the same key')
  },
)

test(
  'same key, another body: 422 idempotency_key_reused, ' + 'nothing placed; without a key every POST places one',
  async (t) => {
    const { h, accountId, pet, post } = await setup(t)
    assert.equal((await post('"k"', `{"petId":${pet.id}}`)).statusCode, 201)
    for (const body of [`{"petId":${pet.id},"quantity":2}`, `{"petId":${pet.id},"complete":false}`]) {
      const response = await post('"k"', body)
      expectCode(response, 422, 'idempotency_key_reused')
      limitHeaders(response)
    }
    assert.equal((await ordersOf(h, accountId)).length, 1)
    for (let i = 0; i < 2; i++) assert.equal((await post(undefined, `{"petId":${pet.id}}`)).statusCode, 201)
    assert.equal((await ordersOf(h, accountId)).length, 3)
  },
)

test(
  'while the first request with the key is in progress: ' + '409 idempotency_key_in_progress, nothing placed',
  async (t) => {
    const { h, accountId, pet, post } = await setup(t)
    const body = `{"petId":${pet.id}}`
    // Learn the body's fingerprint from a real record, then leave another key in progress with it.
    await post('"probe"', body)
    const probe = await h.handle.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('idempotency_key', '=', 'probe')
      .executeTakeFirstOrThrow()
    const now = new Date(h.clock.now())
    await h.handle.db
      .insertInto('idempotency_keys')
      .values({
        ...probe,
        idempotency_key: 'busy',
        state: 'in_progress',
        created_at: now.toISOString(),
        response_status: null,
        response_body: null,
        response_location: null,
      })
      .execute()
    // Still possibly running until REQUEST_TIMEOUT_MS + 5 s (idempotency.repository.ts): 409 up to then.
    h.clock.advance(h.config.requestTimeoutMs + ABANDON_GRACE_MS - 1)
    expectCode(await post('"busy"', body), 409, 'idempotency_key_in_progress')
    assert.equal((await ordersOf(h, accountId)).length, 1)
  },
)

test('a refused placement (petId not yours) does not use its key up', async (t) => {
  const { h, accountId, pet, post } = await setup(t)
  assert.match(expectCode(await post('"retry"', `{"petId":${pet.id + 100}}`), 400, 'invalid_body').message, /'petId'/)
  assert.deepEqual(await h.handle.db.selectFrom('idempotency_keys').selectAll().execute(), [], 'no record is left')
  const retry = await post('"retry"', `{"petId":${pet.id}}`)
  assert.equal(retry.statusCode, 201, retry.body)
  assert.equal((await ordersOf(h, accountId)).length, 1)
})

/** Makes storing a response fail: the order of the same transaction must not survive. */
async function refuseResponseUpdates(h: Harness) {
  if (h.handle.dialect === 'postgres') {
    await sql`CREATE FUNCTION refuse_updates() RETURNS trigger LANGUAGE plpgsql
      AS $$ BEGIN RAISE EXCEPTION 'refused by test'; END $$`.execute(h.handle.db)
    await sql`CREATE TRIGGER refuse_updates BEFORE UPDATE ON idempotency_keys
      FOR EACH ROW EXECUTE FUNCTION refuse_updates()`.execute(h.handle.db)
  } else {
    await sql`CREATE TRIGGER refuse_updates BEFORE UPDATE ON idempotency_keys
      BEGIN SELECT RAISE(ABORT, 'refused by test'); END`.execute(h.handle.db)
  }
}

test(
  'the order and its stored response commit together: ' + 'when the response cannot be stored, no order is left',
  async (t) => {
    const { h, accountId, pet, post } = await setup(t)
    await refuseResponseUpdates(h)
    expectCode(await post('"atomic"', `{"petId":${pet.id}}`), 500, 'internal_error')
    assert.deepEqual(await ordersOf(h, accountId), [])
    assert.deepEqual(await h.handle.db.selectFrom('idempotency_keys').selectAll().execute(), [])
  },
)
