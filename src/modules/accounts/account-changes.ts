// Every change to accounts and keys, each in one transaction with its audit entry (src/audit): an entry exists
// exactly when its change was committed, and a change that changes nothing (revoking a revoked key, suspending a
// suspended account) writes none. One service for each change, used by the CLI, the portal and the console.
// Here the accounts' changes; the keys' are in api-key-changes.ts.
import type { Kysely } from 'kysely'
import type { Clock } from '../../kernel/clock.js'
import type { Engine } from '../../db/engine.js'
import type { AccountRow, ApiKeyRow, Database } from '../../db/schema.js'
import type { AuditActor } from '../audit/audit-event.js'
import { writeAudit } from '../audit/audit.repository.js'
import { newId } from './api-keys.js'
import { AccountInputError, AccountStateError, DELETED_ACCOUNT_NAME, toAccount, type Account } from './account-rows.js'
import { plainTextProblem } from './key-input.js'
import { planFigures, quotaOf } from './plans.js'
import { accountData } from './account-events.js'
import { recordEvent } from '../webhooks/record-event.js'

export const REASON_MAX = 500

/** A reason given for a suspension or a deletion: trimmed, plain text, at most REASON_MAX characters. */
export function checkReason(reason: string | undefined, required: boolean): string | null {
  const trimmed = reason?.trim() ?? ''
  if (trimmed === '') {
    if (required) throw new AccountInputError('a reason is required')
    return null
  }
  if ([...trimmed].length > REASON_MAX) throw new AccountInputError(`a reason has at most ${REASON_MAX} characters`)
  const problem = plainTextProblem(trimmed)
  if (problem) throw new AccountInputError(`a reason ${problem}`)
  return trimmed
}

export interface ChangeContext {
  clock: Clock
  engine: Engine
  /** Runs a change to what key look-ups return in a transaction that announces it (accounts.repository.ts). */
  changingKeys: <T>(what: string, work: (trx: Kysely<Database>) => Promise<T>) => Promise<T>
  /** The key's row if it exists and belongs to `accountId` (when given); NotFoundError otherwise. */
  keyRow: (keyId: string, accountId: string | undefined, executor: Kysely<Database>) => Promise<ApiKeyRow>
  /** The account's row, locked for the rest of the transaction on PostgreSQL (SQLite has one writer at a time). */
  lockedAccount: (trx: Kysely<Database>, id: string) => Promise<AccountRow>
  /** What other modules remove with a deleted account, in its transaction (accounts.repository.ts). */
  removeWithAccount: (trx: Kysely<Database>, accountId: string) => Promise<void>
}

/** The plan and the quota in force, as an audit entry shows them before and after a change. */
function planShown(row: Pick<AccountRow, 'plan' | 'per_minute' | 'per_day'>) {
  const quota = quotaOf({
    plan: row.plan,
    perMinute: row.per_minute === null ? null : Number(row.per_minute),
    perDay: row.per_day === null ? null : Number(row.per_day),
  })
  return { plan: row.plan, perMinute: quota.perMinute, perDay: quota.perDay }
}

export function accountChanges({ clock, engine, changingKeys, lockedAccount, removeWithAccount }: ChangeContext) {
  const iso = (ms: number) => new Date(ms).toISOString()

  return {
    /**
     * Creates an account. `id` lets a caller name the account before it exists (the portal's sign-up, whose actor
     * is the new account); `within` runs more work in the same transaction (the sign-up's portal user), and
     * whatever it throws undoes the account too.
     */
    async createAccount(input: {
      name: string
      plan: string
      perMinute?: number
      perDay?: number
      actor: AuditActor
      id?: string
      within?: (trx: Kysely<Database>, account: Account) => Promise<void>
    }): Promise<Account> {
      const figures = planFigures(input.plan, input.perMinute, input.perDay)
      const at = clock.now()
      const row: AccountRow = {
        id: input.id ?? newId('acct'),
        name: input.name,
        plan: figures.plan,
        per_minute: figures.perMinute,
        per_day: figures.perDay,
        created_at: iso(at),
        deleted_at: null,
        suspended_at: null,
        suspension_reason: null,
      }
      const account = toAccount(row)
      await engine.transaction(async (trx) => {
        await trx.insertInto('accounts').values(row).execute()
        await input.within?.(trx, account)
        await writeAudit(trx, at, input.actor, {
          action: 'account.created',
          accountId: row.id,
          target: { kind: 'account', id: row.id },
          changes: { after: { name: row.name, ...planShown(row) } },
        })
      })
      return account
    },

    /**
     * Changes the plan (and enterprise figures); the next request of any of its keys gets the new quota. `within`
     * runs first in the same transaction, with the account as it is (locked): what it throws undoes everything
     * (an approved plan request: src/plan-requests/).
     */
    async setPlan(input: {
      id: string
      plan: string
      perMinute?: number
      perDay?: number
      actor: AuditActor
      within?: (trx: Kysely<Database>, current: Account) => Promise<void>
    }): Promise<Account> {
      const figures = planFigures(input.plan, input.perMinute, input.perDay)
      return changingKeys('plan', async (trx) => {
        const row = await lockedAccount(trx, input.id)
        await input.within?.(trx, toAccount(row))
        const next: AccountRow = { ...row, plan: figures.plan, per_minute: figures.perMinute, per_day: figures.perDay }
        const before = planShown(row)
        const after = planShown(next)
        const same =
          row.plan === next.plan &&
          Number(row.per_minute ?? -1) === Number(next.per_minute ?? -1) &&
          Number(row.per_day ?? -1) === Number(next.per_day ?? -1)
        if (same) return toAccount(row)
        await trx
          .updateTable('accounts')
          .set({ plan: next.plan, per_minute: next.per_minute, per_day: next.per_day })
          .where('id', '=', input.id)
          .execute()
        await writeAudit(trx, clock.now(), input.actor, {
          action: 'account.plan_changed',
          accountId: row.id,
          target: { kind: 'account', id: row.id },
          changes: { before, after },
        })
        const data = { ...accountData(toAccount(next)), previous: before }
        await recordEvent(trx, { accountId: row.id, type: 'account.plan_changed', data, at: clock.now() })
        return toAccount(next)
      })
    },

    /**
     * Suspends an account: every request with any of its keys is answered 403 account_suspended from the next one
     * on, on every instance (the change is announced). Its keys are left as they are, so reactivating restores them.
     */
    async suspend(input: { accountId: string; reason: string; actor: AuditActor }): Promise<Account> {
      const reason = checkReason(input.reason, true)!
      return changingKeys('suspend', async (trx) => {
        const row = await lockedAccount(trx, input.accountId)
        if (row.deleted_at !== null)
          throw new AccountStateError(`account ${row.id} was deleted; it cannot be suspended`)
        if (row.suspended_at !== null) return toAccount(row)
        const at = clock.now()
        const next: AccountRow = { ...row, suspended_at: iso(at), suspension_reason: reason }
        await trx
          .updateTable('accounts')
          .set({ suspended_at: next.suspended_at, suspension_reason: reason })
          .where('id', '=', row.id)
          .execute()
        await writeAudit(trx, at, input.actor, {
          action: 'account.suspended',
          accountId: row.id,
          target: { kind: 'account', id: row.id },
          changes: { reason },
        })
        await recordEvent(trx, { accountId: row.id, type: 'account.suspended', data: accountData(toAccount(next)), at })
        return toAccount(next)
      })
    },

    /** Ends a suspension: the account's keys work again as they were (a revoked key stays revoked). */
    async reactivate(input: { accountId: string; actor: AuditActor }): Promise<Account> {
      return changingKeys('reactivate', async (trx) => {
        const row = await lockedAccount(trx, input.accountId)
        if (row.suspended_at === null) return toAccount(row)
        const next: AccountRow = { ...row, suspended_at: null, suspension_reason: null }
        await trx
          .updateTable('accounts')
          .set({ suspended_at: null, suspension_reason: null })
          .where('id', '=', row.id)
          .execute()
        await writeAudit(trx, clock.now(), input.actor, {
          action: 'account.reactivated',
          accountId: row.id,
          target: { kind: 'account', id: row.id },
          changes: { before: { suspendedAt: row.suspended_at, reason: row.suspension_reason } },
        })
        const data = accountData(toAccount(next))
        await recordEvent(trx, { accountId: row.id, type: 'account.reactivated', data, at: clock.now() })
        return toAccount(next)
      })
    },

    /**
     * Deletes an account (its owner in the portal, an operator), in one transaction that announces it: every key
     * is refused from the next request on (with a message of its own, and revoked), the account row keeps no email
     * (its name is replaced; `deleted_at` set), and its portal user goes with its sessions, emailed links and
     * failed log-ins, so the address can sign up again. Pets, orders, messages and stored idempotent responses are
     * removed later, in batches, by the purge (account-purge.ts). Deleting a deleted account changes nothing.
     */
    async deleteAccount(
      accountId: string,
      options: { actor: AuditActor; reason?: string },
    ): Promise<{ deletedAt: string }> {
      const reason = checkReason(options.reason, false)
      const atMs = clock.now()
      const at = iso(atMs)
      return changingKeys('delete', async (trx) => {
        const account = await lockedAccount(trx, accountId)
        if (account.deleted_at !== null) return { deletedAt: account.deleted_at }
        await trx
          .updateTable('accounts')
          .set({ deleted_at: at, name: DELETED_ACCOUNT_NAME })
          .where('id', '=', accountId)
          .execute()
        await trx
          .updateTable('api_keys')
          .set({ revoked_at: at })
          .where('account_id', '=', accountId)
          .where('revoked_at', 'is', null)
          .execute()
        await removeWithAccount(trx, accountId)
        await writeAudit(trx, atMs, options.actor, {
          action: 'account.deleted',
          accountId,
          target: { kind: 'account', id: accountId },
          changes: reason === null ? undefined : { reason },
        })
        return { deletedAt: at }
      })
    },
  }
}
