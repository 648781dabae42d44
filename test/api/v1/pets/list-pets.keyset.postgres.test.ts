// Keyset paging on PostgreSQL: the exact SQL an HTTP request ran for a deep page (recorded on the app's database
// handle) is, by PostgreSQL's own EXPLAIN, an Index Scan on pets whose index condition starts after the
// cursor's id, in id order (no Sort), with no OFFSET. Sequential scans are turned off for the EXPLAIN only (on
// the one connection of a transaction), so a small table cannot hide a plan that could not use the index.
// Runs in the PostgreSQL + Redis pass.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { postgresOnly } from '../../../helpers/backend.js'
import { bearer, startHarness, type Harness } from '../../../helpers/harness.js'
import { planNodes as nodes, postgresPlan, recordQueries, type PlanNode } from '../../../helpers/query-log.js'

/** `count` pets of the account; every `soldEvery`-th is sold, the others available or without a status. */
async function fillPets(h: Harness, accountId: string, count: number, soldEvery = 3) {
  await sql`
    insert into pets (account_id, name, category_id, status, created_at)
    select ${accountId}, 'Pet ' || i, i,
      case when i % ${soldEvery}::int = 0 then 'sold' when i % 2 = 0 then 'available' end, '2027-01-01T00:00:00.000Z'
    from generate_series(1, ${count}::int) as i
  `.execute(h.handle.db)
}

/**
 * A multi-tenant table as in production: the account under test owns a small share of the rows (0.5 %), among
 * 200 other accounts, ids interleaved. (When one account owns a large share of a table, scanning the primary key
 * from the cursor and filtering by account is as cheap, and PostgreSQL picks that; it is still keyset, but not
 * the plan this test is about.) 30,000 rows in all, so ANALYZE reads every row and the plan is deterministic.
 * `create: false` adds pets to the accounts made before.
 */
async function fillOtherAccounts(
  h: Harness,
  { create, accounts, pets }: { create: boolean; accounts: number; pets: number },
) {
  if (create) {
    await sql`
      insert into accounts (id, name, plan, per_minute, per_day, created_at)
      select 'acct_other_' || a, 'other', 'free', null, null, '2027-01-01T00:00:00.000Z'
      from generate_series(1, ${accounts}::int) as a
    `.execute(h.handle.db)
  }
  await sql`
    insert into pets (account_id, name, category_id, status, created_at)
    select 'acct_other_' || (1 + i % ${accounts}::int), 'Other ' || i, i,
      case i % 3 when 0 then 'sold' else 'available' end, '2027-01-01T00:00:00.000Z'
    from generate_series(1, ${pets}::int) as i
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
 * Both steps on pets are index scans with every condition in the index: the page's rows (on `index`, its
 * condition matching `condition`), under a Limit, and the EXISTS that tells whether another page follows. No
 * Sort node, no sequential or bitmap scan.
 */
function assertKeysetPlan(plan: PlanNode, index: string, condition: RegExp) {
  const shown = JSON.stringify(plan, null, 1)
  const all = nodes(plan)
  const onPets = all.filter((n) => n['Relation Name'] === 'pets')
  assert.equal(onPets.length, 2, shown)
  for (const n of onPets) {
    assert.match(n['Node Type'], /^Index (Only )?Scan$/, shown)
    assert.equal(n.Filter, undefined, `every condition is in the index: ${shown}`)
  }
  const page = onPets.find((n) => condition.test(n['Index Cond'] ?? ''))
  assert.ok(page, `the page's rows: ${shown}`)
  assert.equal(page['Index Name'], index, shown)
  assert.ok(
    all.some((n) => n['Node Type'] === 'Limit' && n.Plans?.[0] === page),
    `the page's scan stops at the page size: ${shown}`,
  )
  const next = onPets.find((n) => n !== page)!
  assert.match(
    next['Index Cond'] ?? '',
    /\(id > page\.last_id\)\)$/,
    `the next-page check starts after the page's last id: ${shown}`,
  )
  for (const n of all)
    assert.doesNotMatch(n['Node Type'], /Sort|Seq Scan|Bitmap/, `the index gives id order, no sort or scan: ${shown}`)
}

test('postgres: a deep page is an Index Scan on (account_id, id > cursor), in id order, with no OFFSET', async (t) => {
  if (postgresOnly(t)) return
  const log = recordQueries('postgres')
  const h = await startHarness(t, { plugins: [log.plugin] })
  const { accountId, key } = await h.newAccount()
  await fillOtherAccounts(h, { create: true, accounts: 200, pets: 14_925 })
  await fillPets(h, accountId, 150)
  await fillOtherAccounts(h, { create: false, accounts: 200, pets: 14_925 })
  await sql`analyze pets`.execute(h.handle.db)
  const query = await deepPageQuery(h, key, 'limit=10', 10, log)
  assert.doesNotMatch(query.sql, /\boffset\b/i)
  assert.match(query.sql, /\blimit 10\)/i, 'reads one page of rows, whatever the depth')
  assertKeysetPlan(
    await postgresPlan(h.handle.db, query),
    'pets_account_id_id',
    /^\(\(account_id = '[^']+'::text\) AND \(id > '\d+'::bigint\)\)$/,
  )
})

test(
  'postgres: with a status filter the deep page is ' + 'an Index Scan on (account_id, status, id > cursor)',
  async (t) => {
    if (postgresOnly(t)) return
    const log = recordQueries('postgres')
    const h = await startHarness(t, { plugins: [log.plugin] })
    const { accountId, key } = await h.newAccount()
    // Sold pets are a small share of the account's, as a status filter is worth an index for.
    await fillOtherAccounts(h, { create: true, accounts: 100, pets: 14_850 })
    await fillPets(h, accountId, 300, 10)
    await fillOtherAccounts(h, { create: false, accounts: 100, pets: 14_850 })
    await sql`analyze pets`.execute(h.handle.db)
    const query = await deepPageQuery(h, key, 'status=sold&limit=3', 6, log)
    assert.doesNotMatch(query.sql, /\boffset\b/i)
    assertKeysetPlan(
      await postgresPlan(h.handle.db, query),
      'pets_account_status_id',
      /^\(\(account_id = '[^']+'::text\) AND \(status = '\w+'::text\) AND \(id > '\d+'::bigint\)\)$/,
    )
  },
)
