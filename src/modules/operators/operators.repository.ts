// Operators: created with a single-use setup link (24 h), listed, disabled (which ends their sessions), given a
// role; the setup itself (password, authenticator, 10 recovery codes stored as hashes: operator-setup.ts); and the
// log-in factors' single use (a TOTP step, a recovery code). Each change writes its audit entry in its own transaction.
import { randomBytes } from 'node:crypto'
import { PostgresAdapter, type Kysely } from 'kysely'
import { writeAudit } from '../audit/audit.repository.js'
import type { AuditActor } from '../audit/audit-event.js'
import type { Clock } from '../../kernel/clock.js'
import { kyselyEngine, type Engine } from '../../db/engine.js'
import type { Database } from '../../db/schema.js'
import { emailKeyOf, parseEmailAddress } from '../../kernel/email-address.js'
import { randomSecret, secretHash } from '../../kernel/secrets.js'
import { operatorOf, OperatorError, type Operator, type OperatorRole } from './operator.js'
import { recoveryCodeHash } from '../sign-in/recovery-codes.js'
import { operatorSessionsStore } from './operator-sessions.js'
import { operatorSetup } from './operator-setup.js'
import { codeAttempts } from './code-attempts.js'

export const SETUP_LINK_TTL_MS = 24 * 60 * 60 * 1000

export function createOperatorsRepository({
  db,
  clock,
  engine = kyselyEngine(db),
}: {
  db: Kysely<Database>
  clock: Clock
  engine?: Engine
}) {
  const now = () => clock.now()
  const row = (id: string) => db.selectFrom('operators').selectAll().where('id', '=', id).executeTakeFirst()
  const target = (id: string) => ({ kind: 'operator' as const, id })
  const onPostgres = db.getExecutor().adapter instanceof PostgresAdapter
  /** Whether `actor` is the operator `id` acting on itself (the console; the CLI never is). */
  const isSelf = (actor: AuditActor, id: string) => actor.kind === 'operator' && actor.operatorId === id

  /**
   * The ids of the active admins (set up, not disabled), locked on PostgreSQL for the rest of the transaction, so
   * two admins demoting themselves at once cannot both see the other as the one who stays (SQLite: one writer).
   */
  async function activeAdmins(trx: Kysely<Database>): Promise<string[]> {
    let query = trx
      .selectFrom('operators')
      .select('id')
      .where('role', '=', 'admin')
      .where('disabled_at', 'is', null)
      .where('password_hash', 'is not', null)
      .where('totp_secret', 'is not', null)
    if (onPostgres) query = query.forUpdate()
    return (await query.execute()).map((r) => r.id)
  }

  async function existing(id: string) {
    const found = await row(id)
    if (!found) throw new OperatorError('not_found', `no operator ${id}`)
    return found
  }

  return {
    async create({
      email,
      role,
      actor,
    }: {
      email: string
      role: OperatorRole
      actor: AuditActor
    }): Promise<{ operator: Operator; setupToken: string }> {
      const parsed = parseEmailAddress(email)
      if ('problem' in parsed) throw new OperatorError('invalid_email', parsed.problem)
      const token = randomSecret()
      const at = now()
      const values = {
        id: `op_${randomBytes(10).toString('hex')}`,
        email: parsed.email,
        email_key: parsed.key,
        role,
        password_hash: null,
        totp_secret: null,
        totp_last_step: null,
        created_at: new Date(at).toISOString(),
        disabled_at: null,
        password_changed_at: null,
      }
      const created = await engine.transaction(async (trx) => {
        const inserted = await trx
          .insertInto('operators')
          .values(values)
          .onConflict((oc) => oc.column('email_key').doNothing())
          .executeTakeFirst()
        if (inserted.numInsertedOrUpdatedRows !== 1n) return false
        await trx
          .insertInto('operator_tokens')
          .values({
            token_hash: secretHash(token),
            operator_id: values.id,
            created_at: at,
            expires_at: at + SETUP_LINK_TTL_MS,
            used_at: null,
            pending_secret: null,
          })
          .execute()
        await writeAudit(trx, at, actor, {
          action: 'operator.created',
          target: target(values.id),
          changes: { after: { email: values.email, role } },
        })
        return true
      })
      if (!created) throw new OperatorError('email_taken', `an operator with the email ${parsed.email} exists`)
      return { operator: operatorOf(values), setupToken: token }
    },

    async list(): Promise<Operator[]> {
      const rows = await db.selectFrom('operators').selectAll().orderBy('created_at').orderBy('id').execute()
      return rows.map(operatorOf)
    },

    get: async (id: string): Promise<Operator | undefined> => {
      const found = await row(id)
      return found && operatorOf(found)
    },

    findByEmail: async (email: string): Promise<Operator | undefined> => {
      const found = await db
        .selectFrom('operators')
        .selectAll()
        .where('email_key', '=', emailKeyOf(email))
        .executeTakeFirst()
      return found && operatorOf(found)
    },

    /** What a log-in checks: the password hash and the TOTP secret of an enabled, set-up operator. */
    async credentials(
      email: string,
    ): Promise<{ operator: Operator; passwordHash: string; totpSecret: string } | undefined> {
      const found = await db
        .selectFrom('operators')
        .selectAll()
        .where('email_key', '=', emailKeyOf(email))
        .where('disabled_at', 'is', null)
        .executeTakeFirst()
      if (!found || found.password_hash === null || found.totp_secret === null) return undefined
      return { operator: operatorOf(found), passwordHash: found.password_hash, totpSecret: found.totp_secret }
    },

    /**
     * Disables an operator: it can no longer log in, and every session of it ends now. An operator cannot disable
     * itself (the console would lock out the one using it; another admin or the CLI can).
     */
    async disable(id: string, actor: AuditActor): Promise<Operator> {
      const at = now()
      if (isSelf(actor, id))
        throw new OperatorError('self', 'You cannot disable yourself: ask another admin (or use the CLI).')
      const before = await existing(id)
      if (before.disabled_at !== null) return operatorOf(before)
      const disabledAt = new Date(at).toISOString()
      await engine.transaction(async (trx) => {
        await trx
          .updateTable('operators')
          .set({ disabled_at: disabledAt })
          .where('id', '=', id)
          .where('disabled_at', 'is', null)
          .execute()
        await trx.deleteFrom('operator_sessions').where('operator_id', '=', id).execute()
        await trx
          .updateTable('operator_tokens')
          .set({ used_at: at })
          .where('operator_id', '=', id)
          .where('used_at', 'is', null)
          .execute()
        await writeAudit(trx, at, actor, {
          action: 'operator.disabled',
          target: target(id),
          changes: { email: before.email },
        })
      })
      return operatorOf({ ...before, disabled_at: disabledAt })
    },

    /**
     * Gives an operator a role. An admin demoting itself is refused when no other active admin would be left (the
     * console would have nobody to manage it); the CLI, which acts on others only, can always restore an admin.
     */
    async setRole(id: string, role: OperatorRole, actor: AuditActor): Promise<Operator> {
      const before = await existing(id)
      if (before.disabled_at !== null) throw new OperatorError('disabled', `operator ${id} is disabled`)
      if (before.role === role) return operatorOf(before)
      const at = now()
      await engine.transaction(async (trx) => {
        if (isSelf(actor, id) && role !== 'admin' && !(await activeAdmins(trx)).some((other) => other !== id)) {
          throw new OperatorError(
            'last_admin',
            'You are the last active admin: make another operator admin before you change your own role.',
          )
        }
        await trx.updateTable('operators').set({ role }).where('id', '=', id).execute()
        await writeAudit(trx, at, actor, {
          action: 'operator.role_changed',
          target: target(id),
          changes: { email: before.email, before: { role: before.role }, after: { role } },
        })
      })
      return operatorOf({ ...before, role })
    },

    /** Records `step` as the operator's last accepted TOTP step, if it is later than the last one: false = replay. */
    async acceptTotpStep(id: string, step: number): Promise<boolean> {
      const result = await db
        .updateTable('operators')
        .set({ totp_last_step: step })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
        .executeTakeFirst()
      return result.numUpdatedRows === 1n
    },

    /** Uses up one recovery code of the operator (one statement: a code works once). */
    async useRecoveryCode(id: string, code: string): Promise<boolean> {
      const hash = recoveryCodeHash(code)
      if (hash === undefined) return false
      const result = await db
        .updateTable('operator_recovery_codes')
        .set({ used_at: now() })
        .where('operator_id', '=', id)
        .where('code_hash', '=', hash)
        .where('used_at', 'is', null)
        .executeTakeFirst()
      return result.numUpdatedRows === 1n
    },

    /** How many unused recovery codes the operator has left. */
    async recoveryCodesLeft(id: string): Promise<number> {
      const rows = await db
        .selectFrom('operator_recovery_codes')
        .select('code_hash')
        .where('operator_id', '=', id)
        .where('used_at', 'is', null)
        .execute()
      return rows.length
    },

    /** The setup through the link: a secret made for the browser that sent the password (operator-setup.ts). */
    ...operatorSetup({ db, clock, engine }),
    /** Console sessions and failed log-ins (operator-sessions.ts). */
    ...operatorSessionsStore({ db, clock }),
    /** The budget of code attempts per operator across addresses (code-attempts.ts). */
    codeAttempts: codeAttempts({ db, clock }),
  }
}

export type OperatorsRepository = ReturnType<typeof createOperatorsRepository>
