// Pets for tests: created through HTTP where creation is what matters, or straight through the app's own
// repository (the real database, no HTTP) where a test only needs many rows to exist; and read back as rows.
import assert from 'node:assert/strict'
import type { PetStatus } from '../../src/api/v1/pets.schemas.js'
import { bearer, type Harness, type TestAccount } from './harness.js'

export interface PetJson {
  id: number
  name: string
  categoryId: number
  status?: PetStatus
}

/** POST /v1/pets; asserts the 201 and returns the pet as JSON (ids here stay far below 2^53). */
export async function createPet(
  h: Harness,
  key: string,
  pet: { name: string; categoryId: number; status?: PetStatus },
): Promise<PetJson> {
  const response = await h.app.inject({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: pet })
  assert.equal(response.statusCode, 201, response.body)
  return response.json<PetJson>()
}

/** Inserts `count` pets for the account through the repository; `statusOf(i)` picks each status. Returns the ids. */
export async function seedPets(
  h: Harness,
  accountId: string,
  count: number,
  statusOf: (i: number) => PetStatus | undefined = () => undefined,
): Promise<number[]> {
  const ids: number[] = []
  for (let i = 0; i < count; i++) {
    const status = statusOf(i)
    const pet = await h.services.pets.create({
      accountId,
      pet: { name: `Pet ${i}`, categoryId: BigInt(i + 1), ...(status ? { status } : {}) },
    })
    ids.push(Number(pet.id))
  }
  return ids
}

/** The pets rows of an account, straight from the database, by id. */
export function petsOf(h: Harness, accountId: string) {
  return h.handle.db.selectFrom('pets').selectAll().where('account_id', '=', accountId).orderBy('id').execute()
}

/** An account whose quota no test comes near, for tests that send many requests in one (frozen) minute. */
export function roomyAccount(h: Harness): Promise<TestAccount> {
  return h.newAccount({ plan: 'enterprise', perMinute: 1_000_000, perDay: 10_000_000 })
}

export const idsOf = (pets: PetJson[]) => pets.map((p) => p.id)
