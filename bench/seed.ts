// A fresh database for a run: migrated, with an enterprise account whose quota never limits the run (its
// pets for the list/get/post scenarios), a second one with many pets for the deep-page scenario, and an
// exhausted account for the 429 scenario. Inserts go straight to the database, in batches.
import type { Kysely } from 'kysely'
import { createAccountsRepository } from '../src/accounts/accounts.repository.js'
import { systemClock } from '../src/clock.js'
import { openDatabase } from '../src/db/database.js'
import { migrateToLatest } from '../src/db/migrate.js'
import type { Database } from '../src/db/schema.js'
import { loadOrCreateSecret } from '../src/db/settings.js'
import { createCursorCodec } from '../src/http/cursor.js'

export interface Seeded {
  key: string
  exhaustedKey: string
  deepKey: string
  /** Cursor positioned 20 rows before the end of the deep account's pets. */
  deepCursor: string
  petId: string
}

const UNLIMITED = { plan: 'enterprise', perMinute: 1_000_000_000, perDay: 2_000_000_000 }

async function insertPets(db: Kysely<Database>, accountId: string, count: number): Promise<void> {
  const batch = 1_000
  const now = new Date().toISOString()
  const statuses = ['available', 'pending', 'sold', null] as const
  for (let start = 0; start < count; start += batch) {
    const rows = Array.from({ length: Math.min(batch, count - start) }, (_, i) => ({
      account_id: accountId,
      name: `Pet ${start + i}`,
      category_id: BigInt(1 + ((start + i) % 50)),
      status: statuses[(start + i) % 4] ?? null,
      created_at: now,
    }))
    await db.transaction().execute((trx) => trx.insertInto('pets').values(rows).execute())
  }
}

export async function seed({ databaseUrl, pets, deepRows }: { databaseUrl: string; pets: number; deepRows: number }): Promise<Seeded> {
  const handle = openDatabase(databaseUrl)
  try {
    await migrateToLatest(handle.db)
    const accounts = createAccountsRepository({ db: handle.db, clock: systemClock })
    const newKey = async (input: { plan: string; perMinute: number; perDay: number }, name: string) => {
      const account = await accounts.createAccount({ name, ...input })
      return { accountId: account.id, key: (await accounts.createApiKey({ accountId: account.id, environment: 'test' })).key }
    }
    const main = await newKey(UNLIMITED, 'bench')
    const deep = await newKey(UNLIMITED, 'bench-deep')
    const exhausted = await newKey({ plan: 'enterprise', perMinute: 1, perDay: 1 }, 'bench-exhausted')
    await insertPets(handle.db, main.accountId, pets)
    await insertPets(handle.db, deep.accountId, deepRows)
    const ids = await handle.db.selectFrom('pets').select('id').where('account_id', '=', deep.accountId).orderBy('id', 'desc').limit(21).execute()
    const first = await handle.db.selectFrom('pets').select('id').where('account_id', '=', main.accountId).orderBy('id').limit(1).executeTakeFirstOrThrow()
    const cursors = createCursorCodec({ secret: await loadOrCreateSecret(handle.db, 'cursor_secret') })
    const deepCursor = cursors.encode(deep.accountId, { lastId: BigInt(ids.at(-1)!.id), status: undefined })
    return { key: main.key, exhaustedKey: exhausted.key, deepKey: deep.key, deepCursor, petId: String(first.id) }
  } finally {
    await handle.close()
  }
}
