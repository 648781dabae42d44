// A fresh database for a run: migrated, with an enterprise account whose quota never limits the run (its
// pets for the list/get/post scenarios), a second one with many pets and as many store orders for the deep-page
// scenarios, and an exhausted account for the 429 scenario. Inserts go straight to the database, in batches.
import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import { createSecretBox, DEVELOPMENT_SECRETS_KEY, parseSecretsKeys } from '../src/kernel/secret-box.js'
import { newEndpointSecret } from '../src/modules/webhooks/signature.js'
import { createAccountsRepository } from '../src/modules/accounts/accounts.repository.js'
import { systemClock } from '../src/kernel/clock.js'
import { openDatabase } from '../src/db/database.js'
import { migrateToLatest } from '../src/db/migrate.js'
import type { Database } from '../src/db/schema.js'
import { loadOrCreateSecret } from '../src/db/settings.js'
import { createCursorCodec } from '../src/api/contract/cursor.js'
import { ORDERS_LIST } from '../src/api/v1/orders.routes.js'
import { ORDER_STATUSES } from '../src/api/v1/orders.schemas.js'
import { removeOwnersOf } from '../src/modules/integrators/account-owners.js'

export interface Seeded {
  key: string
  exhaustedKey: string
  deepKey: string
  /** Cursor positioned 20 rows before the end of the deep account's pets. */
  deepCursor: string
  petId: string
  /** Cursor positioned 20 approved orders before the end of the deep account's orders (status=approved). */
  deepOrdersCursor: string
  /** A key of an account with one webhook endpoint subscribed to every event (issue 36's `create-subscribed`). */
  subscribedKey: string
}

/**
 * An endpoint of the account subscribed to every type, at `url` (a receiver of the benchmark's own that answers
 * 204), its secret sealed as the service seals it (the development key: the benchmark runs outside production).
 */
async function subscribe(db: Kysely<Database>, accountId: string, url: string): Promise<void> {
  const id = `ep_${randomBytes(12).toString('hex')}`
  const box = createSecretBox(parseSecretsKeys(DEVELOPMENT_SECRETS_KEY))
  const now = new Date().toISOString()
  await db
    .insertInto('webhook_endpoints')
    .values({
      id,
      account_id: accountId,
      url,
      description: 'benchmark receiver',
      event_types: '*',
      enabled: 1,
      disabled_reason: null,
      secret: box.seal(newEndpointSecret(), id),
      previous_secret: null,
      previous_secret_until: null,
      failing_since: null,
      created_at: now,
      updated_at: now,
    })
    .execute()
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

/** `count` orders of one pet, statuses in turn (placed, approved, delivered); every 10th cancelled. */
async function insertOrders(db: Kysely<Database>, accountId: string, petId: bigint, count: number): Promise<void> {
  const batch = 1_000
  const now = new Date().toISOString()
  for (let start = 0; start < count; start += batch) {
    const rows = Array.from({ length: Math.min(batch, count - start) }, (_, i) => ({
      account_id: accountId,
      pet_id: petId,
      quantity: 1 + ((start + i) % 5),
      ship_date: null,
      status: ORDER_STATUSES[(start + i) % ORDER_STATUSES.length]!,
      complete: 0,
      created_at: now,
      cancelled_at: (start + i) % 10 === 9 ? now : null,
    }))
    await db.transaction().execute((trx) => trx.insertInto('orders').values(rows).execute())
  }
}

export async function seed({
  databaseUrl,
  pets,
  deepRows,
  receiverUrl,
}: {
  databaseUrl: string
  pets: number
  deepRows: number
  /** Where the subscribed account's endpoint points. */
  receiverUrl: string
}): Promise<Seeded> {
  const handle = openDatabase(databaseUrl)
  try {
    await migrateToLatest(handle.db)
    const accounts = createAccountsRepository({ db: handle.db, clock: systemClock, removeWithAccount: removeOwnersOf })
    const newKey = async (input: { plan: string; perMinute: number; perDay: number }, name: string) => {
      const actor = { kind: 'system' } as const
      const account = await accounts.createAccount({ name, ...input, actor })
      return {
        accountId: account.id,
        key: (await accounts.createApiKey({ accountId: account.id, environment: 'test', actor })).key,
      }
    }
    const main = await newKey(UNLIMITED, 'bench')
    const deep = await newKey(UNLIMITED, 'bench-deep')
    const exhausted = await newKey({ plan: 'enterprise', perMinute: 1, perDay: 1 }, 'bench-exhausted')
    const subscribed = await newKey(UNLIMITED, 'bench-subscribed')
    await subscribe(handle.db, subscribed.accountId, receiverUrl)
    await insertPets(handle.db, main.accountId, pets)
    await insertPets(handle.db, deep.accountId, deepRows)
    const ids = await handle.db
      .selectFrom('pets')
      .select('id')
      .where('account_id', '=', deep.accountId)
      .orderBy('id', 'desc')
      .limit(21)
      .execute()
    const first = await handle.db
      .selectFrom('pets')
      .select('id')
      .where('account_id', '=', main.accountId)
      .orderBy('id')
      .limit(1)
      .executeTakeFirstOrThrow()
    const cursors = createCursorCodec({ secret: await loadOrCreateSecret(handle.db, 'cursor_secret') })
    const deepCursor = cursors.encode(deep.accountId, { lastId: BigInt(ids.at(-1)!.id), status: undefined })
    await insertOrders(handle.db, deep.accountId, BigInt(ids[0]!.id), deepRows)
    const approved = await handle.db
      .selectFrom('orders')
      .select('id')
      .where('account_id', '=', deep.accountId)
      .where('status', '=', 'approved')
      .where('cancelled_at', 'is', null)
      .orderBy('id', 'desc')
      .limit(21)
      .execute()
    const deepOrdersCursor = cursors.encode(
      deep.accountId,
      { lastId: BigInt(approved.at(-1)!.id), status: 'approved' },
      ORDERS_LIST.list,
    )
    return {
      key: main.key,
      exhaustedKey: exhausted.key,
      deepKey: deep.key,
      deepCursor,
      petId: String(first.id),
      deepOrdersCursor,
      subscribedKey: subscribed.key,
    }
  } finally {
    await handle.close()
  }
}
