// ps.orders against the real service's store orders (issue 16): place (idempotent, int64 petId exact), get,
// cancel, and paging through 250 orders with a status filter.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { BadRequestError, NotFoundError } from '../../sdk/src/index.js'
import { startFaultProxy } from '../helpers/fault-proxy.js'
import { startHarness } from '../helpers/harness.js'
import { roomyAccount, seedPets } from '../helpers/pets.js'
import { clientOf, thrownBy } from '../helpers/sdk.js'

const INT64_MAX = 9223372036854775807n

test('place, get, cancel: the Order with bigint ids; a cancelled order is a NotFoundError', async (t) => {
  const h = await startHarness(t, { listen: true })
  const account = await h.newAccount()
  const { ps } = clientOf(h.baseUrl, account.key)
  const pet = await ps.pets.create({ name: 'Rex', categoryId: 1 })
  const order = await ps.orders.place({ petId: pet.id, quantity: 2, shipDate: new Date('2026-12-01T10:00:00+01:00') })
  assert.equal(typeof order.id, 'bigint')
  assert.deepEqual(order, {
    id: order.id,
    petId: pet.id,
    quantity: 2,
    shipDate: '2026-12-01T09:00:00.000Z',
    status: 'placed',
    complete: false,
    createdAt: order.createdAt,
  })
  assert.deepEqual(await ps.orders.get(order.id), order)
  const defaults = await ps.orders.place({ petId: String(pet.id), status: 'approved', complete: true })
  assert.deepEqual(
    [defaults.quantity, defaults.status, defaults.complete, 'shipDate' in defaults],
    [1, 'approved', true, false],
  )
  await ps.orders.cancel(order.id)
  const err = await thrownBy(() => ps.orders.get(order.id))
  assert.ok(err instanceof NotFoundError && err.code === 'order_not_found')
  await assert.rejects(ps.orders.cancel(order.id), NotFoundError)
  const unknownPet = await thrownBy(() => ps.orders.place({ petId: INT64_MAX }))
  assert.ok(unknownPet instanceof BadRequestError && /petId/.test(unknownPet.message))
})

test('a place whose answer is lost is retried with the same key: one order', async (t) => {
  const h = await startHarness(t, { listen: true })
  const account = await h.newAccount()
  const proxy = await startFaultProxy(t, h.baseUrl)
  const { ps } = clientOf(proxy.origin, account.key)
  const pet = await ps.pets.create({ name: 'Rex', categoryId: 1 })
  proxy.next({ drop: 'after-answer' })
  const order = await ps.orders.place({ petId: pet.id })
  const orders = []
  for await (const o of ps.orders.list()) orders.push(o)
  assert.deepEqual(orders, [order])
  const posts = proxy.requests.filter((r) => r.method === 'POST' && r.url === '/v1/store/orders')
  assert.equal(posts.length, 2)
  assert.equal(posts[0]!.headers['idempotency-key'], posts[1]!.headers['idempotency-key'])
})

test(
  'the iterator returns every one of 250 orders exactly once; ' + 'with a filter, only those; listPage pages',
  async (t) => {
    const h = await startHarness(t, { listen: true })
    const account = await roomyAccount(h)
    const { ps } = clientOf(h.baseUrl, account.key)
    const [petId] = await seedPets(h, account.accountId, 1)
    const placed: bigint[] = []
    const delivered: bigint[] = []
    for (let i = 0; i < 250; i++) {
      const order = await ps.orders.place({ petId: petId!, status: i % 3 === 0 ? 'delivered' : 'placed' })
      placed.push(order.id)
      if (i % 3 === 0) delivered.push(order.id)
    }
    const seen: bigint[] = []
    for await (const order of ps.orders.list({ limit: 100 })) seen.push(order.id)
    assert.deepEqual(seen, placed)
    const filtered: bigint[] = []
    for await (const order of ps.orders.list({ status: 'delivered' })) filtered.push(order.id)
    assert.deepEqual(filtered, delivered)
    const first = await ps.orders.listPage({ limit: 2, status: 'delivered' })
    const second = await ps.orders.listPage({ limit: 2, status: 'delivered', cursor: first.nextCursor })
    assert.deepEqual(
      [...first.data, ...second.data].map((o) => o.id),
      delivered.slice(0, 4),
    )
  },
)

test('petId 9223372036854775807 goes out and comes back exact', async (t) => {
  const h = await startHarness(t, { listen: true })
  const account = await h.newAccount()
  await h.handle.db
    .insertInto('pets')
    .values({
      id: String(INT64_MAX),
      account_id: account.accountId,
      name: 'Max',
      category_id: '1',
      created_at: new Date().toISOString(),
    } as never)
    .execute()
  const { ps } = clientOf(h.baseUrl, account.key)
  const order = await ps.orders.place({ petId: INT64_MAX })
  assert.equal(order.petId, INT64_MAX)
  assert.equal((await ps.orders.get(order.id)).petId, INT64_MAX)
})

test(
  'a cancel whose answer is lost is retried, ' + 'finds no order, and resolves: the order is cancelled once',
  async (t) => {
    const h = await startHarness(t, { listen: true })
    const account = await h.newAccount()
    const proxy = await startFaultProxy(t, h.baseUrl)
    const { ps, responses } = clientOf(proxy.origin, account.key)
    const pet = await ps.pets.create({ name: 'Rex', categoryId: 1 })
    const order = await ps.orders.place({ petId: pet.id })
    proxy.next({ drop: 'after-answer' })
    await ps.orders.cancel(order.id)
    assert.deepEqual(
      responses.slice(-1).map((r) => [r.method, r.status, r.attempt]),
      [['DELETE', 404, 2]],
    )
    await assert.rejects(ps.orders.get(order.id), NotFoundError)
    // Without a lost answer, a 404 is still a NotFoundError.
    await assert.rejects(ps.orders.cancel(order.id), NotFoundError)
  },
)
