import type { ColumnDefinitionBuilder, Kysely, Migration } from 'kysely'

// Integrators' second factors (issue 37), owned by src/modules/two-factor/. Every table references its portal user
// ON DELETE CASCADE: deleting a user (with its account) takes its factors, challenges and log-in steps with it.
// Times are epoch milliseconds (bigint) like the sessions'.
const TABLES = [
  'portal_webauthn_challenges',
  'portal_login_steps',
  'portal_code_failures',
  'portal_recovery_codes',
  'portal_passkeys',
  'portal_two_factor',
] as const

const user = (c: ColumnDefinitionBuilder) => c.notNull().references('portal_users.id').onDelete('cascade')

export const portalTwoFactor: Migration = {
  async up(db: Kysely<unknown>) {
    // One row per user with a second factor or a lock: the authenticator app's secret (sealed with
    // PETSTORE_SECRETS_KEY, bound to the user id; confirmed_at null while enrolment awaits its first code), the last
    // TOTP step accepted (a code works once, across instances), and the end of a lock after too many wrong codes.
    await db.schema
      .createTable('portal_two_factor')
      .addColumn('user_id', 'text', (c) => user(c).primaryKey())
      .addColumn('totp_secret', 'text')
      .addColumn('totp_confirmed_at', 'bigint')
      .addColumn('totp_last_step', 'bigint')
      .addColumn('locked_until', 'bigint')
      .execute()
    // WebAuthn credentials: the id and public key as base64url, the signature counter (0 for authenticators that
    // keep none), what the person named it, when it was added and last used.
    await db.schema
      .createTable('portal_passkeys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', user)
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('public_key', 'text', (c) => c.notNull())
      .addColumn('counter', 'bigint', (c) => c.notNull())
      .addColumn('transports', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .execute()
    await db.schema.createIndex('portal_passkeys_user').on('portal_passkeys').column('user_id').execute()
    await db.schema
      .createTable('portal_recovery_codes')
      .addColumn('code_hash', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', user)
      .addColumn('used_at', 'bigint')
      .execute()
    await db.schema.createIndex('portal_recovery_codes_user').on('portal_recovery_codes').column('user_id').execute()
    // Wrong second-factor codes (and attempts being checked), per user and per client address, for the throttle.
    await db.schema
      .createTable('portal_code_failures')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', user)
      .addColumn('address', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createIndex('portal_code_failures_user')
      .on('portal_code_failures')
      .columns(['user_id', 'at'])
      .execute()
    await db.schema
      .createIndex('portal_code_failures_address')
      .on('portal_code_failures')
      .columns(['address', 'at'])
      .execute()
    // A log-in whose password was right and whose second factor is awaited: the cookie's random id as its hash.
    await db.schema
      .createTable('portal_login_steps')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', user)
      .addColumn('password_changed_at', 'bigint')
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute()
    // WebAuthn challenges: single use, for one browser (the hash of its session or pre-session binding), one purpose.
    await db.schema
      .createTable('portal_webauthn_challenges')
      .addColumn('challenge', 'text', (c) => c.primaryKey())
      .addColumn('binding_hash', 'text', (c) => c.notNull())
      .addColumn('purpose', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.references('portal_users.id').onDelete('cascade'))
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute()
    // When this session last confirmed it is its owner (sudo mode), epoch ms.
    await db.schema.alterTable('portal_sessions').addColumn('sudo_at', 'bigint').execute()
  },

  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('portal_sessions').dropColumn('sudo_at').execute()
    for (const table of TABLES) await db.schema.dropTable(table).execute()
  },
}
