// int64 ids at the extremes: order ids and petId are exact over the whole signed 64-bit range, in bodies, paths
// and lists. orderId: any int64 that names no order is a 404 (0 and negatives included); anything else a 400.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness, type Harness } from '../../../helpers/harness.js'
import { expectError, injectSender } from '../../../helpers/http.js'

const MAX = '9223372036854775807'
const MIN = '-9223372036854775808'

async function insertPet(h: Harness, accountId: string, id: string) {
  await h.handle.db
    .insertInto('pets')
    .values({
      id: BigInt(id),
      account_id: accountId,
      name: 'Max',
      category_id: BigInt(MAX),
      status: null,
      created_at: '2027-01-01T00:00:00.000Z',
    } as never)
    .execute()
}

test('petId 9223372036854775807: placed, and answered exactly in the 201, on get and in the list', async (t) => {
  const h = await startHarness(t)
  const { accountId, key } = await h.newAccount()
  await insertPet(h, accountId, MAX)
  const send = injectSender(h)
  // Raw JSON text: a JavaScript number cannot hold the id.
  const response = await send({
    method: 'POST',
    url: '/v1/store/orders',
    headers: { ...bearer(key), 'content-type': 'application/json' },
    body: `{"petId":${MAX}}`,
  })
  assert.equal(response.statusCode, 201, response.body)
  assert.match(response.body, new RegExp(`"petId":${MAX}[,}]`))
  const id = /"id":(\d+)/.exec(response.body)![1]
  assert.match(
    (await send({ url: `/v1/store/orders/${id}`, headers: bearer(key) })).body,
    new RegExp(`"petId":${MAX}[,}]`),
  )
  assert.match((await send({ url: '/v1/store/orders', headers: bearer(key) })).body, new RegExp(`"petId":${MAX}[,}]`))
})

test('an order with id 9223372036854775807 is read, listed and cancelled by that exact id', async (t) => {
  const h = await startHarness(t)
  const { accountId, key } = await h.newAccount()
  await insertPet(h, accountId, '1')
  await h.handle.db
    .insertInto('orders')
    .values({
      id: BigInt(MAX),
      account_id: accountId,
      pet_id: 1n,
      quantity: 1,
      ship_date: null,
      status: 'placed',
      complete: 0,
      created_at: '2027-01-01T00:00:00.000Z',
      cancelled_at: null,
    } as never)
    .execute()
  const send = injectSender(h)
  const read = await send({ url: `/v1/store/orders/${MAX}`, headers: bearer(key) })
  assert.equal(read.statusCode, 200, read.body)
  assert.match(read.body, new RegExp(`^\\{"id":${MAX},"petId":1,`))
  assert.match((await send({ url: '/v1/store/orders', headers: bearer(key) })).body, new RegExp(`^\\[\\{"id":${MAX},`))
  const near = await send({ url: '/v1/store/orders/9223372036854775806', headers: bearer(key) })
  expectError(near, 404, 'order_not_found', '9223372036854775806')
  assert.equal((await send({ method: 'DELETE', url: `/v1/store/orders/${MAX}`, headers: bearer(key) })).statusCode, 204)
  expectError(await send({ url: `/v1/store/orders/${MAX}`, headers: bearer(key) }), 404, 'order_not_found')
})

test(
  'orderId: any int64 naming no order is 404 order_not_found, ' + 'on get and cancel (0 and negatives included)',
  async (t) => {
    const h = await startHarness(t)
    const { key } = await h.newAccount({ plan: 'pro' })
    const send = injectSender(h)
    for (const id of [MAX, MIN, '0', '-1', '1', '12345']) {
      for (const method of ['GET', 'DELETE']) {
        expectError(
          await send({ method, url: `/v1/store/orders/${id}`, headers: bearer(key) }),
          404,
          'order_not_found',
          id,
        )
      }
    }
  },
)

test('orderId that is not an int64: 400 invalid_parameter naming orderId, on get and cancel', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount({ plan: 'pro' })
  const send = injectSender(h)
  for (const id of [
    '9223372036854775808',
    '-9223372036854775809',
    '99999999999999999999',
    '1.5',
    '1.0',
    'abc',
    '1e3',
    '0x10',
    '+5',
    '01',
    '-0',
    '%201',
    'true',
  ]) {
    for (const method of ['GET', 'DELETE']) {
      expectError(
        await send({ method, url: `/v1/store/orders/${id}`, headers: bearer(key) }),
        400,
        'invalid_parameter',
        "'orderId'",
      )
    }
  }
})

test('petId naming no pet (extremes, 0, negatives) is 400 invalid_body naming petId; past int64 too', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount({ plan: 'pro' })
  const send = injectSender(h)
  const post = (petId: string) =>
    send({
      method: 'POST',
      url: '/v1/store/orders',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      body: `{"petId":${petId}}`,
    })
  for (const petId of [MAX, MIN, '0', '-1', '1']) expectError(await post(petId), 400, 'invalid_body', "'petId'")
  for (const petId of ['9223372036854775808', '-9223372036854775809', '1.5', '"1"', 'null', 'true'])
    expectError(await post(petId), 400, 'invalid_body', "'petId'")
  assert.equal((await h.handle.db.selectFrom('orders').selectAll().execute()).length, 0)
})
