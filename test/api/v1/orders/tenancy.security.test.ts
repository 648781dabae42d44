// Each account is its own store: another account's order is answered exactly like a missing one (get and cancel,
// and a cancel by another account changes nothing), another account's pet cannot be ordered, lists never mix.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness } from '../../../helpers/harness.js'
import { expectError, injectSender, type HttpResponse } from '../../../helpers/http.js'
import { ordersOf, placeOrder, seedOrders, walkOrders } from '../../../helpers/orders.js'
import { createPet, roomyAccount } from '../../../helpers/pets.js'

/**
 * What a client could tell two 404s apart by: status, header names, stable header values, the body with the id
 * masked.
 */
function comparable(response: HttpResponse, id: string) {
  const stable = ['content-type', 'link', 'cache-control', 'location']
  return {
    status: response.statusCode,
    headers: Object.keys(response.headers).sort(),
    values: stable.map((n) => response.headers[n]),
    body: response.body.replaceAll(id, '{id}'),
  }
}

test(
  "another account's order: 404 order_not_found on get and cancel, " +
    "indistinguishable from a missing id; it stays the owner's",
  async (t) => {
    const h = await startHarness(t)
    const a = await h.newAccount()
    const b = await h.newAccount()
    const pet = await createPet(h, a.key, { name: 'Rex', categoryId: 1 })
    const order = await placeOrder(h, a.key, { petId: pet.id, quantity: 7 })
    const missing = String(order.id + 1000)
    const send = injectSender(h)
    for (const method of ['GET', 'DELETE']) {
      const foreign = await send({ method, url: `/v1/store/orders/${order.id}`, headers: bearer(b.key) })
      const absent = await send({ method, url: `/v1/store/orders/${missing}`, headers: bearer(b.key) })
      expectError(foreign, 404, 'order_not_found')
      expectError(absent, 404, 'order_not_found')
      assert.deepEqual(comparable(foreign, String(order.id)), comparable(absent, missing), method)
    }
    const rows = await ordersOf(h, a.accountId)
    assert.equal(rows[0]!.cancelled_at, null, "b's cancel did not cancel a's order")
    assert.deepEqual(
      (await h.app.inject({ url: `/v1/store/orders/${order.id}`, headers: bearer(a.key) })).json(),
      order,
    )
  },
)

test("another account's pet cannot be ordered: 400 invalid_body naming petId, as a missing pet", async (t) => {
  const h = await startHarness(t)
  const a = await h.newAccount()
  const b = await h.newAccount()
  const petOfA = await createPet(h, a.key, { name: 'Rex', categoryId: 1 })
  const send = injectSender(h)
  const post = (petId: number) =>
    send({ method: 'POST', url: '/v1/store/orders', headers: bearer(b.key), body: { petId } })
  const foreign = expectError(await post(petOfA.id), 400, 'invalid_body', "'petId'")
  const absent = expectError(await post(petOfA.id + 1000), 400, 'invalid_body', "'petId'")
  assert.equal(
    foreign.message.replace(String(petOfA.id), '{id}'),
    absent.message.replace(String(petOfA.id + 1000), '{id}'),
  )
  assert.deepEqual(await ordersOf(h, b.accountId), [])
})

test("each account's list, filtered or not and on every page, holds only its own orders", async (t) => {
  const h = await startHarness(t)
  const a = await roomyAccount(h)
  const b = await roomyAccount(h)
  await seedOrders(h, a.key, 7, () => 'approved')
  const mine = await seedOrders(h, b.key, 7, () => 'approved')
  await seedOrders(h, a.key, 7, () => 'approved')
  for (const url of ['/v1/store/orders?limit=3', '/v1/store/orders?limit=2&status=approved']) {
    assert.deepEqual((await walkOrders(h, b.key, url)).pages.flat(), mine, url)
  }
  const fresh = await h.newAccount()
  assert.equal((await h.app.inject({ url: '/v1/store/orders', headers: bearer(fresh.key) })).body, '[]')
})

test('order ids are unique across accounts', async (t) => {
  const h = await startHarness(t)
  const accounts = [await roomyAccount(h), await roomyAccount(h), await roomyAccount(h)]
  const ids: number[] = []
  for (const account of accounts) ids.push(...(await seedOrders(h, account.key, 4)).map((o) => o.id))
  assert.equal(new Set(ids).size, 12)
})
