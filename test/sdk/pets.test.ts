// @petstore/sdk against the real service (a listening harness on the run's database): create, paging with the
// async iterator and listPage, the deprecated get, exact int64 both ways, and onResponse.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startHarness } from '../helpers/harness.js'
import { petsOf, roomyAccount, seedPets } from '../helpers/pets.js'
import { clientOf } from '../helpers/sdk.js'

const INT64_MAX = 9223372036854775807n

test('create returns the Pet with bigint ids; the pet is in the database', async (t) => {
  const h = await startHarness(t, { listen: true })
  const account = await h.newAccount()
  const { ps } = clientOf(h.baseUrl, account.key)
  const pet = await ps.pets.create({ name: 'Rex', categoryId: 1, status: 'available' })
  assert.equal(typeof pet.id, 'bigint')
  assert.deepEqual(pet, { id: pet.id, name: 'Rex', categoryId: 1n, status: 'available' })
  const noStatus = await ps.pets.create({ name: 'Tom', categoryId: '2' })
  assert.equal('status' in noStatus, false, 'a pet created without status has none')
  const rows = await petsOf(h, account.accountId)
  assert.deepEqual(
    rows.map((r) => [BigInt(r.id), r.name]),
    [
      [pet.id, 'Rex'],
      [noStatus.id, 'Tom'],
    ],
  )
})

test(
  'categoryId 9223372036854775807 goes out and comes ' + 'back exact, given as bigint or as a decimal string',
  async (t) => {
    const h = await startHarness(t, { listen: true })
    const account = await h.newAccount()
    const { ps } = clientOf(h.baseUrl, account.key)
    const fromBigint = await ps.pets.create({ name: 'Max', categoryId: INT64_MAX })
    const fromString = await ps.pets.create({ name: 'Max', categoryId: '9223372036854775807' })
    assert.equal(fromBigint.categoryId, INT64_MAX)
    assert.equal(fromString.categoryId, INT64_MAX)
    const rows = await petsOf(h, account.accountId)
    assert.deepEqual(
      rows.map((r) => String(r.category_id)),
      ['9223372036854775807', '9223372036854775807'],
    )
    const listed = await ps.pets.listPage()
    assert.deepEqual(
      listed.data.map((p) => p.categoryId),
      [INT64_MAX, INT64_MAX],
    )
  },
)

test('ids above 2^53 come back exact from list and get, and get takes them as bigint or string', async (t) => {
  const h = await startHarness(t, { listen: true })
  const account = await h.newAccount()
  const { ps } = clientOf(h.baseUrl, account.key)
  const ids = [9007199254740993n, INT64_MAX]
  for (const id of ids) {
    await h.handle.db
      .insertInto('pets')
      .values({
        id: String(id),
        account_id: account.accountId,
        name: `Big ${id}`,
        category_id: String(id),
        created_at: new Date().toISOString(),
      } as never)
      .execute()
  }
  const page = await ps.pets.listPage()
  assert.deepEqual(
    page.data.map((p) => p.id),
    ids,
  )
  assert.deepEqual(
    page.data.map((p) => p.categoryId),
    ids,
  )
  assert.equal((await ps.pets.get(INT64_MAX)).id, INT64_MAX)
  assert.equal((await ps.pets.get('9007199254740993')).id, 9007199254740993n)
})

test('an int64 argument that is not an exact integer is refused before any request', async (t) => {
  const h = await startHarness(t, { listen: true })
  const account = await h.newAccount()
  const { ps, responses } = clientOf(h.baseUrl, account.key)
  for (const categoryId of [9007199254740993, 1.5, '1e3', '0x10', ' 1', Number.NaN] as const) {
    await assert.rejects(ps.pets.create({ name: 'Rex', categoryId }), TypeError, String(categoryId))
  }
  await assert.rejects(ps.pets.get('abc'), TypeError)
  assert.equal(responses.length, 0)
})

test(
  'the iterator returns every one of 250 pets exactly once, ' + 'in id order, following Link page after page',
  async (t) => {
    const h = await startHarness(t, { listen: true })
    const account = await roomyAccount(h)
    const seeded = await seedPets(h, account.accountId, 250, (i) => (i % 5 === 0 ? 'sold' : 'available'))
    const { ps, responses } = clientOf(h.baseUrl, account.key)
    const seen: bigint[] = []
    for await (const pet of ps.pets.list()) seen.push(pet.id)
    assert.deepEqual(seen, seeded.map(BigInt))
    assert.equal(responses.length, 13, '20 per page by default: 13 pages')
    const sold: bigint[] = []
    for await (const pet of ps.pets.list({ status: 'sold', limit: 7 })) sold.push(pet.id)
    assert.deepEqual(sold, seeded.filter((_, i) => i % 5 === 0).map(BigInt))
    assert.ok(
      responses.slice(13).every((r) => r.url.includes('status=sold') && r.url.includes('limit=7')),
      'every page keeps the filter',
    )
  },
)

test('listPage gives one page and the cursor of the next; the last page has none', async (t) => {
  const h = await startHarness(t, { listen: true })
  const account = await h.newAccount()
  const seeded = await seedPets(h, account.accountId, 5)
  const { ps } = clientOf(h.baseUrl, account.key)
  const first = await ps.pets.listPage({ limit: 3 })
  assert.deepEqual(
    first.data.map((p) => p.id),
    seeded.slice(0, 3).map(BigInt),
  )
  assert.equal(typeof first.nextCursor, 'string')
  const second = await ps.pets.listPage({ limit: 3, cursor: first.nextCursor })
  assert.deepEqual(
    second.data.map((p) => p.id),
    seeded.slice(3).map(BigInt),
  )
  assert.equal(second.nextCursor, undefined)
  const empty = await clientOf(h.baseUrl, (await h.newAccount()).key).ps.pets.listPage()
  assert.deepEqual(empty, {
    data: [],
    nextCursor: undefined,
    requestId: empty.requestId,
    rateLimit: { limit: 60, remaining: 59, reset: new Date('2027-01-01T00:01:00Z') },
  })
  assert.match(empty.requestId ?? '', /^[0-9a-f-]{36}$/, 'a page carries its request id')
})

test('onResponse sees every answer with the request id and the quota (reset as a Date)', async (t) => {
  const h = await startHarness(t, { listen: true })
  const account = await h.newAccount()
  const { ps, responses } = clientOf(h.baseUrl, account.key)
  const pet = await ps.pets.create({ name: 'Rex', categoryId: 1 })
  await ps.pets.get(pet.id)
  assert.equal(responses.length, 2)
  const [created, got] = responses
  assert.deepEqual(
    { ...created!, requestId: typeof created!.requestId },
    {
      method: 'POST',
      url: `${h.baseUrl}/v1/pets`,
      status: 201,
      attempt: 1,
      requestId: 'string',
      rateLimit: { limit: 60, remaining: 59, reset: new Date('2027-01-01T00:01:00Z') },
    },
  )
  assert.equal(got!.rateLimit!.remaining, 58)
  assert.equal(got!.url, `${h.baseUrl}/v1/pets/${pet.id}`)
  assert.notEqual(created!.requestId, got!.requestId)
})

test("every POST carries a quoted Idempotency-Key: the caller's, or a fresh UUID per call", async (t) => {
  const h = await startHarness(t, { listen: true })
  const account = await h.newAccount()
  const { ps } = clientOf(h.baseUrl, account.key)
  const first = await ps.pets.create({ name: 'Rex', categoryId: 1 }, { idempotencyKey: 'order-42' })
  const replayed = await ps.pets.create({ name: 'Rex', categoryId: 1 }, { idempotencyKey: 'order-42' })
  assert.equal(replayed.id, first.id, 'the same key is a replay')
  const a = await ps.pets.create({ name: 'Rex', categoryId: 1 })
  const b = await ps.pets.create({ name: 'Rex', categoryId: 1 })
  assert.notEqual(a.id, b.id, 'without a key, each call gets its own')
  assert.equal((await petsOf(h, account.accountId)).length, 3)
})
