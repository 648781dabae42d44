// Service-wide secrets kept in the database, so every instance sharing it agrees on them without setup.
import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Database } from './schema.js'

/** Returns the named secret, creating it on first use; concurrent first uses agree on one value. */
export async function loadOrCreateSecret(db: Kysely<Database>, name: string): Promise<string> {
  await db
    .insertInto('settings')
    .values({ name, value: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()
  const row = await db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirstOrThrow()
  return row.value
}
