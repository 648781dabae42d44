// Pets, always read and written within one account. Listing is keyset paging on (account, [status,] id),
// so a page deep in the table costs what the first page costs.
import type { Kysely } from 'kysely'
import type { Clock } from '../clock.js'
import type { Database, PetRow } from '../db/schema.js'
import type { NewPet, Pet, PetStatus } from './pets.schemas.js'

function toPet(row: Pick<PetRow, 'id' | 'name' | 'category_id' | 'status'>): Pet {
  const pet: Pet = { id: BigInt(row.id), name: row.name, categoryId: BigInt(row.category_id) }
  if (row.status !== null) pet.status = row.status as PetStatus
  return pet
}

export function createPetsRepository({ db, clock }: { db: Kysely<Database>; clock: Clock }) {
  return {
    /** Inserts the pet; resolves once the row is committed (or, given a transaction, written in it). */
    async create({ accountId, pet }: { accountId: string; pet: NewPet }, executor: Kysely<Database> = db): Promise<Pet> {
      const row = await executor
        .insertInto('pets')
        .values({
          account_id: accountId,
          name: pet.name,
          category_id: pet.categoryId,
          status: pet.status ?? null,
          created_at: new Date(clock.now()).toISOString(),
        })
        .returning('id')
        .executeTakeFirstOrThrow()
      return toPet({ id: row.id, name: pet.name, category_id: pet.categoryId, status: pet.status ?? null })
    },

    async get({ accountId, id }: { accountId: string; id: bigint }): Promise<Pet | undefined> {
      const row = await db
        .selectFrom('pets')
        .select(['id', 'name', 'category_id', 'status'])
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .executeTakeFirst()
      return row && toPet(row)
    },

    /** Up to `limit` pets with id > afterId, ordered by id; `hasMore` tells whether another page exists. */
    async list(input: { accountId: string; status?: PetStatus; afterId?: bigint; limit: number }): Promise<{ pets: Pet[]; hasMore: boolean }> {
      let query = db
        .selectFrom('pets')
        .select(['id', 'name', 'category_id', 'status'])
        .where('account_id', '=', input.accountId)
        .orderBy('id')
        .limit(input.limit + 1)
      if (input.status !== undefined) query = query.where('status', '=', input.status)
      if (input.afterId !== undefined) query = query.where('id', '>', input.afterId)
      const rows = await query.execute()
      return { pets: rows.slice(0, input.limit).map(toPet), hasMore: rows.length > input.limit }
    },
  }
}

export type PetsRepository = ReturnType<typeof createPetsRepository>
