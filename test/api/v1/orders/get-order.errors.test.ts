// GET /v1/store/orders/{orderId} refusals: a missing or cancelled order is 404 order_not_found (the int64 rules of
// orderId are in orders.int64.test.ts, another account's order in tenancy.security.test.ts); no query parameters.
import { test } from 'node:test'
import { bearer, startHarness } from '../../../helpers/harness.js'
import { expectError, injectSender } from '../../../helpers/http.js'
import { petAndOrder } from '../../../helpers/orders.js'

test('a missing order and a cancelled one: 404 order_not_found naming the id', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const { order } = await petAndOrder(h, key)
  const send = injectSender(h)
  expectError(
    await send({ url: `/v1/store/orders/${order.id + 1}`, headers: bearer(key) }),
    404,
    'order_not_found',
    String(order.id + 1),
  )
  await send({ method: 'DELETE', url: `/v1/store/orders/${order.id}`, headers: bearer(key) })
  expectError(
    await send({ url: `/v1/store/orders/${order.id}`, headers: bearer(key) }),
    404,
    'order_not_found',
    String(order.id),
  )
})

test('a query parameter, known elsewhere or not: 400 invalid_parameter naming it', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const { order } = await petAndOrder(h, key)
  const send = injectSender(h)
  for (const [query, name] of [
    ['status=placed', 'status'],
    ['foo=1', 'foo'],
    ['limit=1', 'limit'],
  ]) {
    expectError(
      await send({ url: `/v1/store/orders/${order.id}?${query}`, headers: bearer(key) }),
      400,
      'invalid_parameter',
      `'${name}'`,
    )
  }
})
