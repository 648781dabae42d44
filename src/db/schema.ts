// Row types of every table, as Kysely sees them. Integers that can exceed 2^53 are bigint end to end.
import type { Generated, Insertable, Selectable } from 'kysely'

export interface AccountsTable {
  id: string
  name: string
  plan: string
  per_minute: number | null
  per_day: number | null
  created_at: string
}

export interface ApiKeysTable {
  id: string
  account_id: string
  /** SHA-256 (hex) of the whole secret; the secret itself is never stored. */
  key_hash: string
  /** The first characters of the secret (e.g. `ps_test_AbCd`), enough to recognise a key in a list. */
  key_prefix: string
  environment: string
  created_at: string
  revoked_at: string | null
}

export interface PetsTable {
  id: Generated<bigint>
  account_id: string
  name: string
  category_id: bigint
  status: string | null
  created_at: string
}

export interface SettingsTable {
  name: string
  value: string
}

export interface IdempotencyKeysTable {
  account_id: string
  idempotency_key: string
  /** SHA-256 of the canonical JSON of the request body. */
  fingerprint: string
  state: 'in_progress' | 'done'
  response_status: number | null
  response_body: string | null
  response_location: string | null
  created_at: string
  expires_at: string
}

export interface MessagesTable {
  seq: Generated<bigint>
  id: string
  account_id: string
  message: string
  status: 'queued' | 'delivered' | 'failed'
  attempts: Generated<bigint>
  next_attempt_at: bigint
  locked_until: bigint | null
  last_error: string | null
  created_at: string
  delivered_at: string | null
}

export interface Database {
  accounts: AccountsTable
  api_keys: ApiKeysTable
  pets: PetsTable
  settings: SettingsTable
  idempotency_keys: IdempotencyKeysTable
  messages: MessagesTable
}

export type AccountRow = Selectable<AccountsTable>
export type ApiKeyRow = Selectable<ApiKeysTable>
export type PetRow = Selectable<PetsTable>
export type NewPetRow = Insertable<PetsTable>
