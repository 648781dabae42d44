// Keyset paging of listOrders on PostgreSQL: the exact SQL an HTTP request ran for a deep page (recorded on the app's
// database handle) is, by PostgreSQL's own EXPLAIN, an Index Scan on the partial index of live orders whose index
// condition starts after the cursor's id, in id order (no Sort), under the page's Limit, with no OFFSET and no
// Filter (the index holds only live orders). Sequential scans are off for the EXPLAIN only (on the one connection
// of a transaction), so a small table cannot hide a plan that could not use the index. Runs in the PostgreSQL pass.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { postgresOnly } from '../../../helpers/backend.js'
import { startHarness, type Harness } from '../../../helpers/harness.js'
import { deepOrdersPageQuery } from '../../../helpers/orders.js'
import { planNodes, postgresPlan, recordQueries, type PlanNode } from '../../../helpers/query-log.js'

/**
 * Orders of 100 other accounts (one pet each) and `mine` of the account under test, ids interleaved: the account
 * owns a small share of the table, as in production. Statuses in turn, every 7th order cancelled.
 */
async function fill(h: Harness, accountId: string, mine: number) {
  await sql`
    insert into accounts (id, name, plan, per_minute, per_day, created_at)
    select 'acct_other_' || a, 'other', 'free', null, null, '2027-01-01T00:00:00.000Z' from generate_series(1, 100) as a
  `.execute(h.handle.db)
  await sql`
    insert into pets (account_id, name, category_id, status, created_at)
    select 'acct_other_' || a, 'Other', 1, null, '2027-01-01T00:00:00.000Z' from generate_series(1, 100) as a
  `.execute(h.handle.db)
  const pet = await h.services.pets.create({ accountId, pet: { name: 'Rex', categoryId: 1n } })
  const insert = (account: ReturnType<typeof sql>, petId: ReturnType<typeof sql>, count: number) => sql`
    insert into orders (account_id, pet_id, quantity, ship_date, status, complete, created_at, cancelled_at)
    select ${account}, ${petId}, 1, null,
      case i % 3 when 0 then 'delivered' when 1 then 'placed' else 'approved' end, 0,
      '2027-01-01T00:00:00.000Z', case when i % 7 = 0 then '2027-01-02T00:00:00.000Z' end
    from generate_series(1, ${count}::int) as i
  `
  const others = (count: number) =>
    insert(
      sql`'acct_other_' || (1 + i % 100)`,
      sql`(select min(id) from pets where account_id = 'acct_other_' || (1 + i % 100))`,
      count,
    )
  await others(15_000).execute(h.handle.db)
  await insert(sql`${accountId}`, sql`${pet.id}`, mine).execute(h.handle.db)
  await others(15_000).execute(h.handle.db)
  await sql`analyze orders`.execute(h.handle.db)
}

/**
 * Both steps on orders are index scans with every condition in the index: the page's rows (on `index`, its
 * condition matching `condition`), under a Limit, and the EXISTS that tells whether another page follows. No Sort
 * node, no sequential or bitmap scan.
 */
function assertKeysetPlan(plan: PlanNode, index: string, condition: RegExp) {
  const shown = JSON.stringify(plan, null, 1)
  const all = planNodes(plan)
  const onOrders = all.filter((n) => n['Relation Name'] === 'orders')
  assert.equal(onOrders.length, 2, shown)
  for (const n of onOrders) {
    assert.match(n['Node Type'], /^Index (Only )?Scan$/, shown)
    assert.equal(n.Filter, undefined, `every condition is in the index: ${shown}`)
  }
  const page = onOrders.find((n) => condition.test(n['Index Cond'] ?? ''))
  assert.ok(page, `the page's rows: ${shown}`)
  assert.equal(page['Index Name'], index, shown)
  assert.ok(
    all.some((n) => n['Node Type'] === 'Limit' && n.Plans?.[0] === page),
    `the page's scan stops at the page size: ${shown}`,
  )
  const next = onOrders.find((n) => n !== page)!
  assert.match(next['Index Cond'] ?? '', /\(id > page\.last_id\)\)$/, `the next page's check: ${shown}`)
  for (const n of all) assert.doesNotMatch(n['Node Type'], /Sort|Seq Scan|Bitmap/, shown)
}

test(
  'postgres: a deep page is an Index Scan on ' + 'orders_account_id_id (account_id, id > cursor), with no OFFSET',
  async (t) => {
    if (postgresOnly(t)) return
    const log = recordQueries('postgres')
    const h = await startHarness(t, { plugins: [log.plugin] })
    const { accountId, key } = await h.newAccount({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
    await fill(h, accountId, 150)
    const query = await deepOrdersPageQuery(h, key, 'limit=10', 10, log)
    assert.doesNotMatch(query.sql, /\boffset\b/i)
    assert.match(query.sql, /\blimit 10\)/i, 'reads one page of rows, whatever the depth')
    assertKeysetPlan(
      await postgresPlan(h.handle.db, query),
      'orders_account_id_id',
      /^\(\(account_id = '[^']+'::text\) AND \(id > '\d+'::bigint\)\)$/,
    )
  },
)

test(
  'postgres: with a status filter the deep page is an Index Scan ' +
    'on orders_account_status_id (account_id, status, id > cursor)',
  async (t) => {
    if (postgresOnly(t)) return
    const log = recordQueries('postgres')
    const h = await startHarness(t, { plugins: [log.plugin] })
    const { accountId, key } = await h.newAccount({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
    await fill(h, accountId, 300)
    const query = await deepOrdersPageQuery(h, key, 'status=approved&limit=3', 6, log)
    assertKeysetPlan(
      await postgresPlan(h.handle.db, query),
      'orders_account_status_id',
      /^\(\(account_id = '[^']+'::text\) AND \(status = '\w+'::text\) AND \(id > '\d+'::bigint\)\)$/,
    )
  },
)
