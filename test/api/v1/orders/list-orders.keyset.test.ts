// listOrders is keyset paging: a deep page is an index SEARCH on the partial (live orders) index that starts after
// the cursor's id, never a SCAN or an OFFSET; cancelled orders in between change nothing. Checked with SQLite's
// own query plan for the exact SQL an HTTP request ran (recorded on the app's database handle), not with timings.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { sqliteOnly } from '../../../helpers/backend.js'
import { bearer, startHarness, type Harness } from '../../../helpers/harness.js'
import { deepOrdersPageQuery } from '../../../helpers/orders.js'
import { queryPlan, recordQueries } from '../../../helpers/query-log.js'

/** `count` orders of one pet of the account, statuses in turn; every 7th is cancelled. */
async function fillOrders(h: Harness, accountId: string, count: number) {
  const pet = await h.services.pets.create({ accountId, pet: { name: 'Rex', categoryId: 1n } })
  await sql`
    with recursive n(i) as (select 1 union all select i + 1 from n where i < ${count})
    insert into orders (account_id, pet_id, quantity, ship_date, status, complete, created_at, cancelled_at)
    select ${accountId}, ${pet.id}, 1, null,
      case i % 3 when 0 then 'delivered' when 1 then 'placed' else 'approved' end, 0,
      '2027-01-01T00:00:00.000Z', case when i % 7 = 0 then '2027-01-02T00:00:00.000Z' end
    from n
  `.execute(h.handle.db)
}

/**
 * Both steps on orders are index SEARCHes: the page's rows on `index` with `filter`, and the EXISTS that tells
 * whether another page follows, after the page's last id. No scan, no sort (the index gives id order).
 */
function assertKeysetPlan(plan: string[], index: string, filter: RegExp) {
  const onOrders = plan.filter((line) => /\borders\b/.test(line))
  assert.equal(onOrders.length, 2, plan.join('\n'))
  assert.match(onOrders[0]!, new RegExp(`^SEARCH orders USING INDEX ${index} `), plan.join('\n'))
  assert.match(onOrders[0]!, filter, plan.join('\n'))
  assert.match(onOrders[1]!, /^SEARCH orders USING (COVERING )?INDEX \w+ .*id>\?\)$/, plan.join('\n'))
  for (const line of plan) {
    assert.doesNotMatch(line, /^SCAN orders/, 'no table scan (the page itself, `rows`, is read whole)')
    // The aggregate orders the page's (at most 100) rows it is given; the table itself is never sorted.
    assert.doesNotMatch(line, /TEMP B-TREE FOR ORDER BY/, 'no sort of the table: the index gives id order')
  }
}

test('a deep page is a SEARCH on orders_account_id_id (account_id, id > cursor), with no OFFSET', async (t) => {
  if (sqliteOnly(t, "reads SQLite's EXPLAIN QUERY PLAN")) return
  const log = recordQueries()
  const h = await startHarness(t, { plugins: [log.plugin] })
  const { accountId, key } = await h.newAccount({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
  const other = await h.newAccount()
  await fillOrders(h, other.accountId, 3000)
  await fillOrders(h, accountId, 3000)
  await fillOrders(h, other.accountId, 3000)
  const query = await deepOrdersPageQuery(h, key, 'limit=100', 20, log)
  assert.doesNotMatch(query.sql, /\boffset\b/i)
  assert.match(query.sql, /\blimit 100\)/i, 'reads one page of rows, whatever the depth')
  assertKeysetPlan(await queryPlan(h.handle.db, query), 'orders_account_id_id', /\(account_id=\? AND id>\?\)/)
})

test(
  'with a status filter the deep page is a SEARCH on ' + 'orders_account_status_id (account_id, status, id > cursor)',
  async (t) => {
    if (sqliteOnly(t, "reads SQLite's EXPLAIN QUERY PLAN")) return
    const log = recordQueries()
    const h = await startHarness(t, { plugins: [log.plugin] })
    const { accountId, key } = await h.newAccount({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
    await fillOrders(h, accountId, 6000)
    const query = await deepOrdersPageQuery(h, key, 'status=approved&limit=50', 25, log)
    assertKeysetPlan(
      await queryPlan(h.handle.db, query),
      'orders_account_status_id',
      /\(account_id=\? AND status=\? AND id>\?\)/,
    )
  },
)

test(
  'the first page is the same SEARCH, with and without a filter, ' + 'so depth adds nothing but the starting key',
  async (t) => {
    if (sqliteOnly(t, "reads SQLite's EXPLAIN QUERY PLAN")) return
    const log = recordQueries()
    const h = await startHarness(t, { plugins: [log.plugin] })
    const { accountId, key } = await h.newAccount()
    await fillOrders(h, accountId, 500)
    const firstPageQuery = async (query: string) => {
      log.queries.length = 0
      await h.app.inject({ url: `/v1/store/orders?${query}`, headers: bearer(key) })
      const first = log.queries.find((q) => /from "orders"/.test(q.sql))
      assert.ok(first)
      return first
    }
    assertKeysetPlan(
      await queryPlan(h.handle.db, await firstPageQuery('limit=100')),
      'orders_account_id_id',
      /\(account_id=\?\)/,
    )
    assertKeysetPlan(
      await queryPlan(h.handle.db, await firstPageQuery('limit=20&status=approved')),
      'orders_account_status_id',
      /\(account_id=\? AND status=\?\)/,
    )
  },
)
