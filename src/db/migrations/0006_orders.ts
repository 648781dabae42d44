import { sql, type Kysely, type Migration } from 'kysely'
import { serialId } from './columns.js'

// Store orders (issue 16). A cancelled order is kept, with `cancelled_at` set, so the record of what was ordered
// survives; the API answers it as a missing one. Keyset paging reads only live orders, so both paging indexes are
// partial (`WHERE cancelled_at IS NULL`): a page never walks over cancelled rows, and the queries, which say the
// same, match them on SQLite and PostgreSQL alike.
export const orders: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('orders')
      .addColumn('id', ...serialId(db))
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
      // No foreign key: the placement's own statement inserts only for a pet of the account, and pets are never
      // deleted; a constraint would add nothing but a tie between the tables (the fault tests drop `pets` to make a
      // request fail, which PostgreSQL refuses while another table references it).
      .addColumn('pet_id', sql`bigint`, (c) => c.notNull())
      .addColumn('quantity', 'integer', (c) => c.notNull())
      // RFC 3339 in UTC with milliseconds, as answered; absent when the order was placed without one.
      .addColumn('ship_date', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      // 0 or 1 on both databases: one row mapping for both drivers.
      .addColumn('complete', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('cancelled_at', 'text')
      .execute()
    const live = sql.ref('cancelled_at')
    await db.schema
      .createIndex('orders_account_id_id')
      .on('orders')
      .columns(['account_id', 'id'])
      .where(live, 'is', null)
      .execute()
    await db.schema
      .createIndex('orders_account_status_id')
      .on('orders')
      .columns(['account_id', 'status', 'id'])
      .where(live, 'is', null)
      .execute()
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('orders').execute()
  },
}
