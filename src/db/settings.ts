// Service-wide values kept in the database (secrets, the environment it belongs to), so every instance sharing it
// agrees on them without setup.
import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import { ConfigError, type Environment } from '../kernel/config.js'
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

const ENVIRONMENT_SETTING = 'environment'

/**
 * A database belongs to one environment: the first process that migrates or opens it records its PETSTORE_ENV
 * (a database from before this record gets it on its next use). A process started with another PETSTORE_ENV on it
 * is refused, so a forgotten variable cannot, say, create a `ps_test_` key in a production database.
 */
export async function claimEnvironment(
  db: Kysely<Database>,
  environment: Environment,
  location: string,
): Promise<void> {
  await db
    .insertInto('settings')
    .values({ name: ENVIRONMENT_SETTING, value: environment })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()
  const row = await db
    .selectFrom('settings')
    .select('value')
    .where('name', '=', ENVIRONMENT_SETTING)
    .executeTakeFirstOrThrow()
  if (row.value !== environment) {
    throw new ConfigError([
      `PETSTORE_ENV=${environment}, but the database ${location} belongs to the ${row.value} environment; set ` +
        `PETSTORE_ENV=${row.value}, or DATABASE_URL to a ${environment} database`,
    ])
  }
}
