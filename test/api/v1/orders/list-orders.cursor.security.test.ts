// listOrders' cursors are the signed keyset cursors of listPets (src/http/cursor.ts), signed also with the list:
// one altered, taken from another account, used with another status, or issued by listPets is a 400
// invalid_cursor naming `cursor`; and an orders cursor is refused by listPets.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness, type Harness } from '../../../helpers/harness.js'
import { expectError, injectSender } from '../../../helpers/http.js'
import { seedOrders, type OrderJson } from '../../../helpers/orders.js'
import { roomyAccount, seedPets } from '../../../helpers/pets.js'

async function issuedCursor(h: Harness, key: string, url: string): Promise<string> {
  const response = await h.app.inject({ url, headers: bearer(key) })
  const link = /^<([^>]+)>; rel="next"$/.exec(String(response.headers.link))
  assert.ok(link, `a Link: ${String(response.headers.link)}`)
  return new URL(link[1]!).searchParams.get('cursor')!
}

async function expectInvalidCursor(h: Harness, key: string, url: string) {
  const response = await injectSender(h)({ url, headers: bearer(key) })
  assert.equal(response.statusCode, 400, `${url}: ${response.body}`)
  expectError(response, 400, 'invalid_cursor', "'cursor'")
}

async function setup(t: Parameters<typeof startHarness>[0]) {
  const h = await startHarness(t)
  const account = await roomyAccount(h)
  const orders = await seedOrders(h, account.key, 6, (i) => (i % 2 === 0 ? 'placed' : 'approved'))
  return { h, ...account, orders }
}

test('the issued cursor is accepted and continues after the page (the control for the refusals below)', async (t) => {
  const { h, key, orders } = await setup(t)
  const cursor = await issuedCursor(h, key, '/v1/store/orders?limit=2')
  const next = await h.app.inject({ url: `/v1/store/orders?limit=2&cursor=${cursor}`, headers: bearer(key) })
  assert.equal(next.statusCode, 200, next.body)
  assert.deepEqual(next.json<OrderJson[]>(), orders.slice(2, 4))
})

test('altered, forged or from another account: refused', async (t) => {
  const { h, key } = await setup(t)
  const cursor = await issuedCursor(h, key, '/v1/store/orders?limit=2')
  const [payload, signature] = cursor.split('.') as [string, string]
  const forged = `${Buffer.from('1:').toString('base64url')}.${signature}`
  // Another character in place of the first or last one: never the same text.
  const other = (c: string) => (c === 'A' ? 'B' : 'A')
  const altered = [
    `${payload}.${signature.slice(0, -1)}${other(signature.at(-1)!)}`,
    `${other(payload[0]!)}${payload.slice(1)}.${signature}`,
  ]
  for (const bad of [...altered, forged, cursor + 'A', 'abc', `${cursor}.${cursor}`]) {
    await expectInvalidCursor(h, key, `/v1/store/orders?limit=2&cursor=${encodeURIComponent(bad)}`)
  }
  const stranger = await roomyAccount(h)
  await expectInvalidCursor(h, stranger.key, `/v1/store/orders?limit=2&cursor=${cursor}`)
})

test('a cursor used with another status filter, or without its filter: refused', async (t) => {
  const { h, key } = await setup(t)
  const placed = await issuedCursor(h, key, '/v1/store/orders?limit=1&status=placed')
  await expectInvalidCursor(h, key, `/v1/store/orders?limit=1&status=approved&cursor=${placed}`)
  await expectInvalidCursor(h, key, `/v1/store/orders?limit=1&cursor=${placed}`)
  const plain = await issuedCursor(h, key, '/v1/store/orders?limit=1')
  await expectInvalidCursor(h, key, `/v1/store/orders?limit=1&status=placed&cursor=${plain}`)
})

test("listPets' cursors are refused by listOrders, and listOrders' by listPets", async (t) => {
  const { h, key, accountId } = await setup(t)
  await seedPets(h, accountId, 3)
  const petsCursor = await issuedCursor(h, key, '/v1/pets?limit=1')
  await expectInvalidCursor(h, key, `/v1/store/orders?limit=1&cursor=${petsCursor}`)
  const ordersCursor = await issuedCursor(h, key, '/v1/store/orders?limit=1')
  await expectInvalidCursor(h, key, `/v1/pets?limit=1&cursor=${ordersCursor}`)
  assert.equal(
    (await h.app.inject({ url: `/v1/pets?limit=1&cursor=${petsCursor}`, headers: bearer(key) })).statusCode,
    200,
  )
})
