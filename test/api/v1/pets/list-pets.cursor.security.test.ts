// Paging cursors are verified: one that was altered in any character, forged, taken from another account,
// or replayed with another status filter is a 400 invalid_cursor naming `cursor`, never a silent misread.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness, type Harness } from '../../../helpers/harness.js'
import { expectError, injectSender } from '../../../helpers/http.js'
import { roomyAccount, seedPets, type PetJson } from '../../../helpers/pets.js'
import { testActor } from '../../../helpers/actors.js'

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

/** A cursor issued by the service: the `cursor` of the first page's Link. */
async function issuedCursor(h: Harness, key: string, query = 'limit=2'): Promise<string> {
  const response = await h.app.inject({ url: `/v1/pets?${query}`, headers: bearer(key) })
  const link = /^<([^>]+)>; rel="next"$/.exec(String(response.headers.link))
  assert.ok(link, `a Link: ${String(response.headers.link)}`)
  const cursor = new URL(link[1]!).searchParams.get('cursor')
  assert.ok(cursor)
  return cursor
}

async function expectInvalidCursor(h: Harness, key: string, query: string) {
  const response = await injectSender(h)({ url: `/v1/pets?${query}`, headers: bearer(key) })
  assert.equal(response.statusCode, 400, `?${query}: ${response.body}`)
  const error = expectError(response, 400, 'invalid_cursor')
  assert.ok(error.message.includes("'cursor'"), error.message)
}

test('the issued cursor itself is accepted (the control for the refusals below)', async (t) => {
  const h = await startHarness(t)
  const { accountId, key } = await h.newAccount()
  const ids = await seedPets(h, accountId, 5)
  const cursor = await issuedCursor(h, key)
  const next = await h.app.inject({
    url: `/v1/pets?limit=2&cursor=${encodeURIComponent(cursor)}`,
    headers: bearer(key),
  })
  assert.equal(next.statusCode, 200)
  assert.deepEqual(
    next.json<PetJson[]>().map((p) => p.id),
    ids.slice(2, 4),
  )
})

test('a cursor altered in any single character is refused', async (t) => {
  const h = await startHarness(t)
  const { accountId, key } = await roomyAccount(h)
  await seedPets(h, accountId, 5)
  for (const query of ['limit=2', 'limit=2&status=sold']) {
    if (query.includes('sold')) await seedPets(h, accountId, 5, () => 'sold')
    const cursor = await issuedCursor(h, key, query)
    const alterations = new Set<string>()
    for (let i = 0; i < cursor.length; i++) {
      // every position: two other characters; the last character of each part (whose low bits base64
      // decoders ignore): every other character of the alphabet
      const lastOfPart = i === cursor.length - 1 || cursor[i + 1] === '.'
      const replacements = lastOfPart ? [...BASE64URL] : ['A', 'z', '.'].filter((c) => c !== cursor[i]).slice(0, 2)
      for (const c of replacements) if (c !== cursor[i]) alterations.add(cursor.slice(0, i) + c + cursor.slice(i + 1))
    }
    alterations.add(cursor + 'A')
    alterations.add(cursor.slice(0, -1))
    alterations.add(`${cursor}.${cursor}`)
    for (const altered of alterations)
      await expectInvalidCursor(h, key, `${query}&cursor=${encodeURIComponent(altered)}`)
  }
})

test('a cursor issued to another account is refused', async (t) => {
  const h = await startHarness(t)
  const a = await h.newAccount()
  const b = await h.newAccount()
  await seedPets(h, a.accountId, 5)
  await seedPets(h, b.accountId, 5)
  const cursorOfA = await issuedCursor(h, a.key)
  await expectInvalidCursor(h, b.key, `limit=2&cursor=${encodeURIComponent(cursorOfA)}`)
})

test('a cursor replayed with another status filter (or none) is refused', async (t) => {
  const h = await startHarness(t)
  const { accountId, key } = await h.newAccount()
  await seedPets(h, accountId, 12, (i) => (i % 2 ? 'sold' : 'available'))
  const unfiltered = encodeURIComponent(await issuedCursor(h, key, 'limit=2'))
  const sold = encodeURIComponent(await issuedCursor(h, key, 'limit=2&status=sold'))
  await expectInvalidCursor(h, key, `limit=2&status=sold&cursor=${unfiltered}`)
  await expectInvalidCursor(h, key, `limit=2&cursor=${sold}`)
  await expectInvalidCursor(h, key, `limit=2&status=available&cursor=${sold}`)
  const sameFilter = await h.app.inject({ url: `/v1/pets?limit=2&status=sold&cursor=${sold}`, headers: bearer(key) })
  assert.equal(sameFilter.statusCode, 200)
})

test("a cursor the service never issued is refused: garbage, forged ids, other services' tokens", async (t) => {
  const h = await startHarness(t)
  const { accountId, key } = await h.newAccount()
  await seedPets(h, accountId, 5)
  const forgedPayload = Buffer.from('2:').toString('base64url')
  const garbage = [
    'abc',
    'abc.def',
    '.',
    'a.',
    '.a',
    '0',
    '20',
    'MjA6',
    `${forgedPayload}.AAAAAAAAAAAAAAAAAAAAAA`,
    'eyJsYXN0SWQiOjJ9',
    '%00',
    '../../etc/passwd',
    'a'.repeat(512),
  ]
  for (const cursor of garbage) await expectInvalidCursor(h, key, `cursor=${encodeURIComponent(cursor)}`)
})

test('a cursor from another installation (another signing secret) is refused', async (t) => {
  const one = await startHarness(t)
  const two = await startHarness(t)
  const a = await one.newAccount()
  await seedPets(one, a.accountId, 5)
  const cursor = await issuedCursor(one, a.key)
  // Same account id in the second installation, so only the secret differs.
  const row = await one.handle.db
    .selectFrom('accounts')
    .selectAll()
    .where('id', '=', a.accountId)
    .executeTakeFirstOrThrow()
  await two.handle.db.insertInto('accounts').values(row).execute()
  const twinKey = await two.services.accounts.createApiKey({
    actor: testActor,
    accountId: a.accountId,
    environment: 'test',
  })
  await seedPets(two, a.accountId, 5)
  await expectInvalidCursor(two, twinKey.key, `limit=2&cursor=${encodeURIComponent(cursor)}`)
})
