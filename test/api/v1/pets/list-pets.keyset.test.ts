// Listing is keyset paging: a page deep in the table is an index range SEARCH that starts after the
// cursor's id, never a SCAN that counts past OFFSET rows. Checked with SQLite's own query plan for the
// exact SQL an HTTP request ran (recorded on the app's database handle), not with timings.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { sqliteOnly } from '../../../helpers/backend.js'
import { bearer, startHarness, type Harness } from '../../../helpers/harness.js'
import { queryPlan, recordQueries } from '../../../helpers/query-log.js'

async function fillPets(h: Harness, accountId: string, count: number) {
  await sql`
    with recursive n(i) as (select 1 union all select i + 1 from n where i < ${count})
    insert into pets (account_id, name, category_id, status, created_at)
    select ${accountId}, 'Pet ' || i, i, case i % 3 when 0 then 'sold' when 1 then 'available' else null end,
      '2027-01-01T00:00:00.000Z'
    from n
  `.execute(h.handle.db)
}

/** Pages with `query` until `pages` pages are read; returns the SQL of the last page's pets query. */
async function deepPageQuery(
  h: Harness,
  key: string,
  query: string,
  pages: number,
  log: ReturnType<typeof recordQueries>,
) {
  let url = `/v1/pets?${query}`
  for (let page = 1; page < pages; page++) {
    const response = await h.app.inject({ url, headers: bearer(key) })
    assert.equal(response.statusCode, 200)
    const next = /^<([^>]+)>; rel="next"$/.exec(String(response.headers.link))?.[1]
    assert.ok(next, `page ${page} has a next page`)
    url = new URL(next).pathname + new URL(next).search
  }
  log.queries.length = 0
  const last = await h.app.inject({ url, headers: bearer(key) })
  assert.equal(last.statusCode, 200)
  assert.ok(last.json<unknown[]>().length > 0)
  const petsQueries = log.queries.filter((q) => /^select\b.*\bfrom "pets"/i.test(q.sql))
  assert.equal(petsQueries.length, 1, 'one query reads the page')
  return petsQueries[0]!
}

/**
 * Every step on pets is an index SEARCH: the page's rows (its condition matching `filter`) and the EXISTS that
 * tells whether another page follows. The only sort is the JSON aggregate's ORDER BY over the page's own rows.
 */
function assertKeysetPlan(plan: string[], filter: RegExp) {
  assert.ok(plan.length > 0)
  const onPets = plan.filter((line) => /\bpets\b/.test(line))
  assert.equal(onPets.length, 2, plan.join('\n'))
  for (const line of onPets) assert.match(line, /^SEARCH pets USING (COVERING )?INDEX \w+ /, plan.join('\n'))
  assert.match(onPets[0]!, filter, plan.join('\n'))
  assert.match(onPets[1]!, /id>\?\)$/, `the next-page check starts after the page's last id: ${plan.join('\n')}`)
  for (const line of plan) {
    assert.doesNotMatch(line, /^SCAN pets/, 'no table scan')
    assert.doesNotMatch(line, /TEMP B-TREE FOR ORDER BY/, 'no sort of the table: the index gives id order')
  }
}

test('a deep page is an index SEARCH on (account_id, id > cursor), with no OFFSET', async (t) => {
  if (sqliteOnly(t, "reads SQLite's EXPLAIN QUERY PLAN")) return
  const log = recordQueries()
  const h = await startHarness(t, { plugins: [log.plugin] })
  const { accountId, key } = await h.newAccount()
  const other = await h.newAccount()
  await fillPets(h, other.accountId, 3000)
  await fillPets(h, accountId, 3000)
  await fillPets(h, other.accountId, 3000)
  const query = await deepPageQuery(h, key, 'limit=100', 25, log)
  assert.doesNotMatch(query.sql, /\boffset\b/i)
  assert.match(query.sql, /\blimit 100\)/i, 'reads one page of rows, whatever the depth')
  assertKeysetPlan(await queryPlan(h.handle.db, query), /\(account_id=\? AND id>\?\)/)
})

test('with a status filter the deep page is a SEARCH on (account_id, status, id > cursor)', async (t) => {
  if (sqliteOnly(t, "reads SQLite's EXPLAIN QUERY PLAN")) return
  const log = recordQueries()
  const h = await startHarness(t, { plugins: [log.plugin] })
  const { accountId, key } = await h.newAccount()
  await fillPets(h, accountId, 6000)
  const query = await deepPageQuery(h, key, 'status=sold&limit=50', 30, log)
  assert.doesNotMatch(query.sql, /\boffset\b/i)
  assertKeysetPlan(await queryPlan(h.handle.db, query), /\(account_id=\? AND status=\? AND id>\?\)/)
})

test('the first page is the same kind of SEARCH, so depth adds nothing but the starting key', async (t) => {
  if (sqliteOnly(t, "reads SQLite's EXPLAIN QUERY PLAN")) return
  const log = recordQueries()
  const h = await startHarness(t, { plugins: [log.plugin] })
  const { accountId, key } = await h.newAccount()
  await fillPets(h, accountId, 500)
  log.queries.length = 0
  await h.app.inject({ url: '/v1/pets?limit=100', headers: bearer(key) })
  const first = log.queries.find((q) => /from "pets"/.test(q.sql))
  assert.ok(first)
  assertKeysetPlan(await queryPlan(h.handle.db, first), /\(account_id=\?\)/)
})
