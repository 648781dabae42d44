// What both reference servers need of the seeded database: the id of the account whose key the run sends.
import type { Database } from 'better-sqlite3'
import { hashApiKey } from '../../src/modules/accounts/api-keys.js'

export function seededAccountId(db: Database, key: string): string {
  return db.prepare('SELECT account_id FROM api_keys WHERE key_hash = ?').pluck().get(hashApiKey(key)) as string
}
