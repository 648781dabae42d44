// Store orders, always read and written within one account. A cancelled order is kept (`cancelled_at`) and
// treated as missing by every read. Listing is keyset paging on the partial indexes (account, [status,] id)
// of live orders, so a page deep in the table costs what the first page costs.
import { sql, type Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import { kyselyEngine, type Engine } from '../../db/engine.js'
import { prepared } from '../../db/prepared.js'
import { dialectOf } from '../../db/database.js'
import { ordersJsonArray } from './orders-json.js'
import type { Database } from '../../db/schema.js'
import { OrderRefused } from './orders.errors.js'
import type { NewOrder, Order, OrderStatus } from './order.js'

const COLUMNS = ['id', 'pet_id', 'quantity', 'ship_date', 'status', 'complete', 'created_at'] as const

// Integers: bigint from SQLite (safeIntegers), number from PostgreSQL's int4; ids are bigint from both.
function toOrder(row: {
  id: bigint
  pet_id: bigint
  quantity: number | bigint
  ship_date: string | null
  status: string
  complete: number | bigint
  created_at: string
}): Order {
  const base = { id: row.id, petId: row.pet_id, quantity: Number(row.quantity) }
  const rest = { status: row.status as OrderStatus, complete: Number(row.complete) === 1, createdAt: row.created_at }
  return row.ship_date === null ? { ...base, ...rest } : { ...base, shipDate: row.ship_date, ...rest }
}

/**
 * RFC 3339 (validated by the schema) to UTC with milliseconds. JavaScript dates have no leap second and the
 * answer must stay a four-digit-year RFC 3339 date, so those few are refused rather than shifted.
 */
function normaliseShipDate(text: string): string {
  const time = Date.parse(text.replace(' ', 'T').toUpperCase())
  const iso = Number.isNaN(time) ? '' : new Date(time).toISOString()
  if (!/^\d{4}-/.test(iso)) throw new OrderRefused('shipDate', iso)
  return iso
}

export function createOrdersRepository({
  db,
  clock,
  engine = kyselyEngine(db),
}: {
  db: Kysely<Database>
  clock: Clock
  engine?: Engine
}) {
  const live = (qb: Kysely<Database>, p: <T>(name: string) => T) =>
    qb.selectFrom('orders').where('account_id', '=', p<string>('accountId')).where('cancelled_at', 'is', null)

  const getQuery = prepared({ db, engine }, (qb, _: null, p) =>
    live(qb, p).select(COLUMNS).where('id', '=', p<bigint>('id')),
  )

  // A page comes back as the response body itself (orders-json.ts), the id of its last order and whether more
  // follow, in one statement, on the partial index whatever the depth. The page size is part of the SQL text (a
  // literal, validated 1–100), so each size is one prepared statement.
  const ordersJson = ordersJsonArray(dialectOf(db))
  const pageQuery = prepared({ db, engine }, (qb, shape: { status: boolean; after: boolean; limit: number }, p) => {
    let filtered = live(qb, p)
    if (shape.status) filtered = filtered.where('status', '=', p<string>('status'))
    let rows = filtered.select(COLUMNS)
    if (shape.after) rows = rows.where('id', '>', p<bigint>('afterId'))
    const later = filtered.select(sql.lit(1).as('one'))
    return qb
      .selectFrom(
        qb
          .selectFrom(rows.orderBy('id').limit(sql.lit(shape.limit)).as('rows'))
          .select((eb) => [ordersJson.as('body'), eb.fn.max('id').as('last_id')])
          .as('page'),
      )
      .select((eb) => [
        'body',
        'last_id',
        eb.exists(later.where('orders.id', '>', sql.ref<bigint>('page.last_id'))).as('more'),
      ])
  })

  // The pet must be the account's own: the row is inserted only when that pet is found, in the same statement.
  const insertQuery = prepared({ db, engine }, (qb, _: null, p) =>
    qb
      .insertInto('orders')
      .columns(['account_id', 'pet_id', 'quantity', 'ship_date', 'status', 'complete', 'created_at'])
      .expression((eb) =>
        eb
          .selectFrom('pets')
          .select((s) => [
            'account_id',
            'id',
            s.cast<number>(s.val(p('quantity')), 'integer').as('quantity'),
            s.cast<string | null>(s.val(p('shipDate')), 'text').as('ship_date'),
            s.cast<string>(s.val(p('status')), 'text').as('status'),
            s.cast<number>(s.val(p('complete')), 'integer').as('complete'),
            s.cast<string>(s.val(p('createdAt')), 'text').as('created_at'),
          ])
          .where('account_id', '=', p<string>('accountId'))
          .where('id', '=', p<bigint>('petId')),
      )
      .returning('id'),
  )

  const cancelQuery = prepared({ db, engine }, (qb, _: null, p) =>
    qb
      .updateTable('orders')
      .set({ cancelled_at: p<string>('now') })
      .where('account_id', '=', p<string>('accountId'))
      .where('id', '=', p<bigint>('id'))
      .where('cancelled_at', 'is', null)
      .returning('id'),
  )

  return {
    /**
     * Places the order (given a transaction, in it; it is one statement); throws 400 `invalid_body` naming
     * `petId` when that is not a pet of the account.
     */
    async place(
      { accountId, order }: { accountId: string; order: NewOrder },
      executor: Kysely<Database>,
    ): Promise<Order> {
      const shipDate = order.shipDate === undefined ? null : normaliseShipDate(order.shipDate)
      const values = {
        accountId,
        petId: order.petId,
        quantity: order.quantity ?? 1,
        shipDate,
        status: order.status ?? 'placed',
        complete: order.complete ? 1 : 0,
        createdAt: new Date(clock.now()).toISOString(),
      }
      const row = await insertQuery.first(null, values, executor)
      if (row === undefined) throw new OrderRefused('petId', String(order.petId))
      return toOrder({
        id: row.id,
        pet_id: order.petId,
        quantity: values.quantity,
        ship_date: shipDate,
        status: values.status,
        complete: values.complete,
        created_at: values.createdAt,
      })
    },

    async get({ accountId, id }: { accountId: string; id: bigint }): Promise<Order | undefined> {
      const row = await getQuery.first(null, { accountId, id })
      return row && toOrder(row)
    },

    /**
     * Up to `limit` live orders with id > afterId, by id; `lastId` is the page's last, `hasMore` whether more follow.
     */
    async page(input: {
      accountId: string
      status?: OrderStatus
      afterId?: bigint
      limit: number
    }): Promise<{ json: string; lastId?: bigint; hasMore: boolean }> {
      const shape = { status: input.status !== undefined, after: input.afterId !== undefined, limit: input.limit }
      const row = await pageQuery.first(shape, input)
      if (row === undefined) throw new Error('the page query returned no row')
      // EXISTS is a boolean on PostgreSQL and the integer 0 or 1 on SQLite.
      return { json: row.body, lastId: row.last_id ?? undefined, hasMore: row.more === true || Number(row.more) === 1 }
    },

    /** Cancels a live order of the account; false when there is none (missing, another account's, cancelled). */
    async cancel({ accountId, id }: { accountId: string; id: bigint }): Promise<boolean> {
      const values = { accountId, id, now: new Date(clock.now()).toISOString() }
      const row = await engine.write((executor) => cancelQuery.first(null, values, executor))
      return row !== undefined
    },
  }
}

export type OrdersRepository = ReturnType<typeof createOrdersRepository>
