// Paging GET /v1/pets on a real listening server: follow `Link: <absolute URL>; rel="next"` (RFC 8288)
// with fetch, exactly as a client would, until no Link is left.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, startHarness, type Harness } from '../../../helpers/harness.js'
import { seedPets, type PetJson } from '../../../helpers/pets.js'

const NEXT = /^<([^>]+)>; rel="next"$/

/** Fetches from `url` following rel="next" to the end; returns each page's pets and the Link URLs seen. */
async function walk(url: string, key: string) {
  const pages: PetJson[][] = []
  const links: URL[] = []
  let next: string | undefined = url
  while (next) {
    const response: Response = await fetch(next, { headers: bearer(key) })
    assert.equal(response.status, 200, await response.clone().text())
    pages.push((await response.json()) as PetJson[])
    const link = response.headers.get('link')
    if (link === null) break
    const match = NEXT.exec(link)
    assert.ok(match, `Link is RFC 8288 <URI>; rel="next": ${link}`)
    links.push(new URL(match[1]!))
    next = match[1]
    assert.ok(pages.length <= 20, 'paging ends')
  }
  return { pages, links }
}

async function setup(t: Parameters<typeof startHarness>[0], config?: Parameters<typeof startHarness>[1]) {
  const h: Harness = await startHarness(t, { listen: true, ...config })
  const account = await h.newAccount()
  return { h, ...account }
}

test('45 pets at limit 20: three pages, every pet once, in id order, no Link on the last page', async (t) => {
  const { h, accountId, key } = await setup(t)
  const ids = await seedPets(h, accountId, 45)
  const { pages, links } = await walk(`${h.baseUrl}/v1/pets?limit=20`, key)
  assert.deepEqual(
    pages.map((p) => p.length),
    [20, 20, 5],
  )
  assert.deepEqual(
    pages.flat().map((p) => p.id),
    ids,
  )
  assert.equal(links.length, 2)
  for (const link of links) {
    assert.equal(link.origin, h.baseUrl, 'the Link is absolute, on the origin the client used')
    assert.equal(link.pathname, '/v1/pets')
    assert.equal(link.searchParams.get('limit'), '20')
    assert.ok(link.searchParams.get('cursor'))
  }
})

test('the default limit pages by 20 and the Link names it', async (t) => {
  const { h, accountId, key } = await setup(t)
  await seedPets(h, accountId, 21)
  const { pages, links } = await walk(`${h.baseUrl}/v1/pets`, key)
  assert.deepEqual(
    pages.map((p) => p.length),
    [20, 1],
  )
  assert.equal(links[0]?.searchParams.get('limit'), '20')
})

test('exactly two full pages: no empty third page is offered', async (t) => {
  const { h, accountId, key } = await setup(t)
  await seedPets(h, accountId, 40)
  const { pages } = await walk(`${h.baseUrl}/v1/pets?limit=20`, key)
  assert.deepEqual(
    pages.map((p) => p.length),
    [20, 20],
  )
})

test('the Link keeps limit and status, and paging with a filter sees only that status', async (t) => {
  const { h, accountId, key } = await setup(t)
  const ids = await seedPets(h, accountId, 45, (i) => (i % 3 === 0 ? 'sold' : i % 3 === 1 ? 'available' : undefined))
  const { pages, links } = await walk(`${h.baseUrl}/v1/pets?status=sold&limit=4`, key)
  assert.deepEqual(
    pages.flat().map((p) => p.id),
    ids.filter((_, i) => i % 3 === 0),
  )
  assert.ok(pages.flat().every((p) => p.status === 'sold'))
  assert.equal(links.length, 3)
  for (const link of links) {
    assert.equal(link.searchParams.get('limit'), '4')
    assert.equal(link.searchParams.get('status'), 'sold')
  }
})

test('pets added while paging are neither skipped nor repeated (keyset, not offset)', async (t) => {
  const { h, accountId, key } = await setup(t)
  const ids = await seedPets(h, accountId, 10)
  const first = await fetch(`${h.baseUrl}/v1/pets?limit=5`, { headers: bearer(key) })
  const seen = ((await first.json()) as PetJson[]).map((p) => p.id)
  const later = await seedPets(h, accountId, 3)
  const next = NEXT.exec(first.headers.get('link') ?? '')?.[1]
  assert.ok(next)
  const rest = await walk(next, key)
  assert.deepEqual([...seen, ...rest.pages.flat().map((p) => p.id)], [...ids, ...later])
})

test('with PETSTORE_PUBLIC_URL the Link uses that origin', async (t) => {
  const { h, accountId, key } = await setup(t, { config: { publicUrl: 'https://api.petstore.example' } })
  await seedPets(h, accountId, 3)
  const response = await fetch(`${h.baseUrl}/v1/pets?limit=2`, { headers: bearer(key) })
  assert.match(response.headers.get('link') ?? '', /^<https:\/\/api\.petstore\.example\/v1\/pets\?[^>]+>; rel="next"$/)
})
