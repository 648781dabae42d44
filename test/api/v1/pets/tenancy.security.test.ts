// Each account is its own store: another account's pet is answered exactly like one that does not
// exist, lists never mix accounts, and pet ids are unique service-wide.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness } from '../../../helpers/harness.js'
import { expectError, injectSender, type HttpResponse } from '../../../helpers/http.js'
import { createPet, idsOf, type PetJson } from '../../../helpers/pets.js'
import { testActor } from '../../../helpers/actors.js'

/**
 * What a client could tell two 404s apart by: status, header names, the values of the headers that do
 * not vary per request (request id, date, length and rate-limit counters do), and the body with the id masked.
 */
function comparable(response: HttpResponse, id: string) {
  const headers = Object.keys(response.headers).sort()
  const stable = ['content-type', 'deprecation', 'sunset', 'link', 'www-authenticate', 'cache-control']
  return {
    status: response.statusCode,
    headers,
    values: stable.map((name) => response.headers[name]),
    body: response.body.replaceAll(id, '{id}'),
  }
}

test("another account's pet is a 404 pet_not_found, indistinguishable from a missing id", async (t) => {
  const h = await startHarness(t)
  const a = await h.newAccount()
  const b = await h.newAccount()
  const petOfA = await createPet(h, a.key, { name: 'Rex', categoryId: 1, status: 'available' })
  await createPet(h, b.key, { name: 'Own', categoryId: 1 })
  const missingId = String(petOfA.id + 1000)
  const send = injectSender(h)
  const foreign = await send({ url: `/v1/pets/${petOfA.id}`, headers: bearer(b.key) })
  const missing = await send({ url: `/v1/pets/${missingId}`, headers: bearer(b.key) })
  expectError(foreign, 404, 'pet_not_found')
  expectError(missing, 404, 'pet_not_found')
  assert.ok(!foreign.body.includes('Rex'), 'nothing of the pet is shown')
  assert.deepEqual(comparable(foreign, String(petOfA.id)), comparable(missing, missingId))
  const own = await send({ url: `/v1/pets/${petOfA.id}`, headers: bearer(a.key) })
  assert.equal(own.statusCode, 200, 'the owner still sees it')
})

test("an account's list holds only its own pets, filtered or not, on every page", async (t) => {
  const h = await startHarness(t)
  const a = await h.newAccount()
  const b = await h.newAccount()
  const mine: PetJson[] = []
  for (let i = 0; i < 6; i++) {
    await createPet(h, a.key, { name: `A${i}`, categoryId: 1, status: 'sold' })
    mine.push(await createPet(h, b.key, { name: `B${i}`, categoryId: 1, status: 'sold' }))
  }
  const listed = await h.app.inject({ url: '/v1/pets', headers: bearer(b.key) })
  assert.deepEqual(listed.json(), mine)
  const sold = await h.app.inject({ url: '/v1/pets?status=sold', headers: bearer(b.key) })
  assert.deepEqual(sold.json(), mine)
  const seen: PetJson[] = []
  let url: string | undefined = '/v1/pets?limit=2'
  while (url) {
    const page: { json: <T>() => T; headers: Record<string, unknown> } = await h.app.inject({
      url,
      headers: bearer(b.key),
    })
    seen.push(...page.json<PetJson[]>())
    const next: string | undefined = /^<([^>]+)>/.exec(String(page.headers.link ?? ''))?.[1]
    url = next && new URL(next).pathname + new URL(next).search
  }
  assert.deepEqual(seen, mine)
})

test('a new account sees an empty store even when others have pets', async (t) => {
  const h = await startHarness(t)
  const a = await h.newAccount()
  await createPet(h, a.key, { name: 'Rex', categoryId: 1 })
  const fresh = await h.newAccount()
  assert.deepEqual((await h.app.inject({ url: '/v1/pets', headers: bearer(fresh.key) })).json(), [])
})

test('pet ids are unique across accounts', async (t) => {
  const h = await startHarness(t)
  const accounts = [await h.newAccount(), await h.newAccount(), await h.newAccount()]
  const ids: number[] = []
  for (let round = 0; round < 4; round++) {
    for (const account of accounts) ids.push((await createPet(h, account.key, { name: `P${round}`, categoryId: 1 })).id)
  }
  assert.equal(new Set(ids).size, ids.length)
  const listed = await Promise.all(
    accounts.map(async (a) =>
      idsOf((await h.app.inject({ url: '/v1/pets', headers: bearer(a.key) })).json<PetJson[]>()),
    ),
  )
  assert.equal(new Set(listed.flat()).size, ids.length, 'each id belongs to exactly one list')
})

test('two keys of the same account share its store', async (t) => {
  const h = await startHarness(t)
  const a = await h.newAccount()
  const second = await h.services.accounts.createApiKey({
    actor: testActor,
    accountId: a.accountId,
    environment: 'test',
  })
  const pet = await createPet(h, a.key, { name: 'Rex', categoryId: 1 })
  const response = await h.app.inject({ url: `/v1/pets/${pet.id}`, headers: bearer(second.key) })
  assert.deepEqual(response.json(), pet)
})
