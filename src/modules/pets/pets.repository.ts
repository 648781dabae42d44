// Pets, always read and written within one account. Listing is keyset paging on (account, [status,] id),
// so a page deep in the table costs what the first page costs.
import { sql, type Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import { dialectOf } from '../../db/database.js'
import { kyselyEngine, type Engine } from '../../db/engine.js'
import { prepared } from '../../db/prepared.js'
import type { Database, PetRow } from '../../db/schema.js'
import { petsJsonArray } from './pets-json.js'
import type { NewPet, Pet, PetStatus } from './pet.js'

// Integers arrive as bigint from both drivers (SQLite safeIntegers, PostgreSQL's int8 parser). One object literal
// per case: a pet is made for every row of every page, and adding `status` afterwards would change its shape.
function toPet(row: Pick<PetRow, 'id' | 'name' | 'category_id' | 'status'>): Pet {
  return row.status === null
    ? { id: row.id, name: row.name, categoryId: row.category_id }
    : { id: row.id, name: row.name, categoryId: row.category_id, status: row.status as PetStatus }
}

export function createPetsRepository({
  db,
  clock,
  engine = kyselyEngine(db),
}: {
  db: Kysely<Database>
  clock: Clock
  engine?: Engine
}) {
  const getQuery = prepared({ db, engine }, (qb, _: null, p) =>
    qb
      .selectFrom('pets')
      .select(['id', 'name', 'category_id', 'status'])
      .where('account_id', '=', p<string>('accountId'))
      .where('id', '=', p<bigint>('id')),
  )
  // A page comes back from the database as the response body itself: one JSON text built by the database (see
  // pets-json.ts), the id of its last pet and whether more follow, in one statement and so one snapshot. The page
  // size is part of the SQL text (a literal, validated 1–100), so each size is one prepared statement.
  const petsJson = petsJsonArray(dialectOf(db))
  const pageQuery = prepared({ db, engine }, (qb, shape: { status: boolean; after: boolean; limit: number }, p) => {
    // The account's pets under the filter: the page reads them after `afterId`, the EXISTS after the page's last.
    let filtered = qb.selectFrom('pets').where('account_id', '=', p<string>('accountId'))
    if (shape.status) filtered = filtered.where('status', '=', p<string>('status'))
    let rows = filtered.select(['id', 'name', 'category_id', 'status'])
    if (shape.after) rows = rows.where('id', '>', p<bigint>('afterId'))
    const later = filtered.select(sql.lit(1).as('one'))
    return qb
      .selectFrom(
        qb
          .selectFrom(rows.orderBy('id').limit(sql.lit(shape.limit)).as('rows'))
          .select((eb) => [petsJson.as('body'), eb.fn.max('id').as('last_id')])
          .as('page'),
      )
      .select((eb) => [
        'body',
        'last_id',
        eb.exists(later.where('pets.id', '>', sql.ref<bigint>('page.last_id'))).as('more'),
      ])
  })

  const insertQuery = prepared({ db, engine }, (qb, _: null, p) =>
    qb
      .insertInto('pets')
      .values({
        account_id: p('accountId'),
        name: p('name'),
        category_id: p('categoryId'),
        status: p('status'),
        created_at: p('createdAt'),
      })
      .returning('id'),
  )

  return {
    /** Inserts the pet; resolves once the row is committed (or, given a transaction, written in it). */
    async create(
      { accountId, pet }: { accountId: string; pet: NewPet },
      executor: Kysely<Database> = db,
    ): Promise<Pet> {
      const values = {
        accountId,
        name: pet.name,
        categoryId: pet.categoryId,
        status: pet.status ?? null,
        createdAt: new Date(clock.now()).toISOString(),
      }
      const row = await insertQuery.first(null, values, executor)
      if (row === undefined) throw new Error('INSERT … RETURNING returned no row')
      return toPet({ id: row.id, name: pet.name, category_id: pet.categoryId, status: pet.status ?? null })
    },

    async get({ accountId, id }: { accountId: string; id: bigint }): Promise<Pet | undefined> {
      const row = await getQuery.first(null, { accountId, id })
      return row && toPet(row)
    },

    /**
     * Up to `limit` pets with id > afterId, ordered by id, as the JSON text of the response body; `lastId` is the
     * id of the page's last pet, `hasMore` whether another page follows it.
     */
    async page(input: {
      accountId: string
      status?: PetStatus
      afterId?: bigint
      limit: number
    }): Promise<{ json: string; lastId?: bigint; hasMore: boolean }> {
      const shape = { status: input.status !== undefined, after: input.afterId !== undefined, limit: input.limit }
      const row = await pageQuery.first(shape, input)
      if (row === undefined) throw new Error('the page query returned no row')
      // EXISTS is a boolean on PostgreSQL and the integer 0 or 1 on SQLite.
      return { json: row.body, lastId: row.last_id ?? undefined, hasMore: row.more === true || Number(row.more) === 1 }
    },
  }
}

export type PetsRepository = ReturnType<typeof createPetsRepository>
