// DELETE /v1/store/orders/{orderId} refusals: an order already cancelled is 404 order_not_found (it is answered as
// missing, by this operation too), as is a missing one; query parameters are refused.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness } from '../../../helpers/harness.js'
import { expectError, injectSender } from '../../../helpers/http.js'
import { ordersOf, petAndOrder } from '../../../helpers/orders.js'

test('cancelling twice: 204, then 404 order_not_found; the first cancellation time is kept', async (t) => {
  const h = await startHarness(t)
  const { accountId, key } = await h.newAccount()
  const { order } = await petAndOrder(h, key)
  const send = injectSender(h)
  const cancel = () => send({ method: 'DELETE', url: `/v1/store/orders/${order.id}`, headers: bearer(key) })
  assert.equal((await cancel()).statusCode, 204)
  const [row] = await ordersOf(h, accountId)
  h.clock.advance(60_000)
  expectError(await cancel(), 404, 'order_not_found', String(order.id))
  assert.deepEqual(await ordersOf(h, accountId), [row])
})

test('a missing order: 404; a query parameter: 400 invalid_parameter, and the order stays', async (t) => {
  const h = await startHarness(t)
  const { key } = await h.newAccount()
  const { order } = await petAndOrder(h, key)
  const send = injectSender(h)
  expectError(
    await send({ method: 'DELETE', url: `/v1/store/orders/${order.id + 1}`, headers: bearer(key) }),
    404,
    'order_not_found',
  )
  expectError(
    await send({ method: 'DELETE', url: `/v1/store/orders/${order.id}?force=true`, headers: bearer(key) }),
    400,
    'invalid_parameter',
    "'force'",
  )
  assert.equal((await send({ url: `/v1/store/orders/${order.id}`, headers: bearer(key) })).statusCode, 200)
})
