// Plan requests, used by the portal (an integrator asks for a higher plan) and the console (an admin approves or
// declines). Each change writes its audit entry in its own transaction; an approval is one transaction with the
// plan change, which is the accounts service's (account.plan_changed). The integrator is mailed the decision.
import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Account } from '../accounts/account-rows.js'
import type { AuditActor } from '../audit/audit-event.js'
import { writeAudit } from '../audit/audit.repository.js'
import type { Clock } from '../../kernel/clock.js'
import { dialectOf } from '../../db/database.js'
import { kyselyEngine, type Engine } from '../../db/engine.js'
import type { Database } from '../../db/schema.js'
import type { Mailer } from '../../mail/mail.js'
import { planApprovedMessage, planDeclinedMessage } from './plan-request-mail.js'
import {
  checkDeclineReason,
  checkEnterpriseFigures,
  checkNote,
  checkRequestedPlan,
  isHigherPlan,
  PENDING_PER_ACCOUNT,
  PlanRequestError,
} from './plan-request-input.js'
import { createPlanRequestsRepository, type PlanRequest } from './plan-requests.repository.js'
import { reasonOf } from '../../kernel/reason.js'

export { PlanRequestError } from './plan-request-input.js'

interface PlanRequestsOptions {
  db: Kysely<Database>
  clock: Clock
  engine?: Engine
  accounts: {
    getAccount(id: string): Promise<Account>
    setPlan(input: {
      id: string
      plan: string
      perMinute?: number
      perDay?: number
      actor: AuditActor
      within?: (trx: Kysely<Database>, current: Account) => Promise<void>
    }): Promise<Account>
  }
  /** Mails the decisions (absent: none are sent). */
  mailer?: Mailer
  /** PETSTORE_PUBLIC_URL: the only origin of links in mail. */
  publicUrl: string
  /** Where a mail that could not be sent is reported. */
  log?: { warn: (obj: object, msg: string) => void }
}

/** How a decision records who made it. */
function actorLabel(actor: AuditActor): string {
  switch (actor.kind) {
    case 'operator':
      return actor.email
    case 'account':
      return actor.email ?? actor.accountId
    case 'cli':
      return `cli:${actor.user}`
    case 'system':
      return 'system'
  }
}

const day = (iso: string) => iso.slice(0, 10)

export function createPlanRequests({
  db,
  clock,
  engine = kyselyEngine(db),
  accounts,
  mailer,
  publicUrl,
  log,
}: PlanRequestsOptions) {
  const repo = createPlanRequestsRepository({ db })
  const onPostgres = dialectOf(db) === 'postgres'
  const usageLink = `${publicUrl}/portal/usage`
  const mailFailed = (error: unknown) => log?.warn({ reason: reasonOf(error) }, 'plan request mail not sent')

  /** The request, still pending; a clear refusal otherwise. */
  async function pending(id: string): Promise<PlanRequest> {
    const request = await repo.get(id)
    if (!request) throw new PlanRequestError('not_found', `There is no plan request ${id}.`)
    if (request.state !== 'pending') throw alreadyDecided(request)
    return request
  }
  const alreadyDecided = (r: PlanRequest) =>
    new PlanRequestError(
      'decided',
      `This request was already ${r.state}${r.decidedBy ? ` by ${r.decidedBy}` : ''}${
        r.decidedAt ? ` at ${r.decidedAt}` : ''
      }; nothing was changed.`,
    )

  /** Declines; a request decided meanwhile by someone else is refused, and nothing changes. */
  async function declineOnce(request: PlanRequest, reason: string, actor: AuditActor): Promise<PlanRequest> {
    const at = clock.now()
    const decided = {
      state: 'declined' as const,
      decidedAt: new Date(at).toISOString(),
      decidedBy: actorLabel(actor),
      reason,
    }
    const won = await engine.transaction(async (trx) => {
      if (!(await repo.decide(trx, request.id, decided))) return false
      const changes = { plan: request.plan, reason }
      await writeAudit(trx, at, actor, {
        action: 'plan_request.declined',
        accountId: request.accountId,
        target: { kind: 'plan_request', id: request.id },
        changes,
      })
      return true
    })
    if (!won) throw alreadyDecided((await repo.get(request.id)) ?? request)
    return { ...request, ...decided }
  }

  return {
    get: repo.get,
    /** The account's oldest pending request, if any. */
    pendingOf: async (accountId: string) => (await repo.pendingOf(accountId))[0],
    /** Every pending request of the account (at most PENDING_PER_ACCOUNT), oldest first. */
    allPendingOf: (accountId: string) => repo.pendingOf(accountId),
    latestOf: repo.latestOf,
    list: repo.list,
    pendingPage: repo.pendingPage,
    getListing: repo.getListing,

    /**
     * An integrator asks for a higher plan. An account has at most PENDING_PER_ACCOUNT requests pending, and one
     * per plan: a flood from one account is three requests, however fast it sends them. `admit`, the last check
     * (the portal's per-address throttle), runs once the request would be stored, so a refused one is not counted;
     * it throws to refuse, and nothing is stored.
     */
    async create(input: {
      accountId: string
      plan: string
      note: string
      actor: AuditActor
      admit?: () => Promise<void>
    }): Promise<PlanRequest> {
      const note = checkNote(input.note)
      const at = clock.now()
      return engine.transaction(async (trx) => {
        // The account's row is locked on PostgreSQL, so that two requests sent at once cannot both count the
        // same pending ones (SQLite runs one writer at a time).
        let query = trx.selectFrom('accounts').select(['plan', 'deleted_at']).where('id', '=', input.accountId)
        if (onPostgres) query = query.forUpdate()
        const account = await query.executeTakeFirst()
        if (!account || account.deleted_at !== null)
          throw new PlanRequestError('not_found', 'This account does not exist any more.')
        const plan = checkRequestedPlan(input.plan, account.plan)
        const waiting = await repo.pendingOf(input.accountId, trx)
        if (waiting.length >= PENDING_PER_ACCOUNT) {
          throw new PlanRequestError(
            'state',
            `Your account has ${waiting.length} requests waiting for an operator, the most it may have. You can ask ` +
              `again once one is decided.`,
          )
        }
        const same = waiting.find((w) => w.plan === plan)
        if (same) {
          throw new PlanRequestError(
            'state',
            `Your request for the ${same.plan} plan, sent on ${day(same.createdAt)}, is still waiting for an ` +
              `operator. You can ask again once it is decided.`,
          )
        }
        await input.admit?.()
        const request: PlanRequest = {
          id: `preq_${randomBytes(10).toString('hex')}`,
          accountId: input.accountId,
          plan,
          note,
          state: 'pending',
          createdAt: new Date(at).toISOString(),
          decidedAt: null,
          decidedBy: null,
          reason: null,
        }
        await repo.insert(trx, request)
        await writeAudit(trx, at, input.actor, {
          action: 'plan_request.created',
          accountId: input.accountId,
          target: { kind: 'plan_request', id: request.id },
          changes: { plan, currentPlan: account.plan, note },
        })
        return request
      })
    },

    /**
     * Approves a pending request: the account moves to the plan asked for (enterprise with the quotas given here).
     * One transaction (the plan change's, with the account locked) decides the request, checks the account can
     * still take that plan, changes it and writes both entries: of two operators deciding at once, one wins whole.
     */
    async approve(input: {
      id: string
      actor: AuditActor
      perMinute?: number
      perDay?: number
    }): Promise<{ request: PlanRequest; account: Account }> {
      const request = await pending(input.id)
      const figures = request.plan === 'enterprise' ? checkEnterpriseFigures(input.perMinute, input.perDay) : {}
      const at = clock.now()
      const decided = {
        state: 'approved' as const,
        decidedAt: new Date(at).toISOString(),
        decidedBy: actorLabel(input.actor),
        reason: null,
      }
      let lost = false
      let account: Account
      try {
        account = await accounts.setPlan({
          id: request.accountId,
          plan: request.plan,
          ...figures,
          actor: input.actor,
          within: async (trx, current) => {
            if (current.deletedAt !== null)
              throw new PlanRequestError('state', 'The account was deleted: decline the request instead.')
            // An operator may have changed the plan since: approving must not move the account down.
            if (!isHigherPlan(request.plan, current.plan))
              throw new PlanRequestError(
                'state',
                `The account is already on the ${current.plan} plan, not below ${request.plan}: decline the request ` +
                  `instead.`,
              )
            if (!(await repo.decide(trx, request.id, decided))) {
              lost = true
              throw new PlanRequestError('decided', 'decided meanwhile')
            }
            const changes = { before: { plan: current.plan }, after: { plan: request.plan, ...figures } }
            await writeAudit(trx, at, input.actor, {
              action: 'plan_request.approved',
              accountId: request.accountId,
              target: { kind: 'plan_request', id: request.id },
              changes,
            })
          },
        })
      } catch (error) {
        // Someone else decided it first: say who, as read after the rollback.
        if (lost) throw alreadyDecided((await repo.get(request.id)) ?? request)
        throw error
      }
      mailer?.sendLater(async () => {
        const to = await repo.ownerEmail(request.accountId)
        return to ? planApprovedMessage(to, { plan: account.plan, ...account.quota, usageLink }) : undefined
      }, mailFailed)
      return { request: { ...request, ...decided }, account }
    },

    /** Declines a pending request with a reason, which is mailed to the integrator. */
    async decline(input: { id: string; reason: string; actor: AuditActor }): Promise<PlanRequest> {
      const reason = checkDeclineReason(input.reason)
      const request = await pending(input.id)
      const decided = await declineOnce(request, reason, input.actor)
      mailer?.sendLater(async () => {
        const [to, account] = await Promise.all([
          repo.ownerEmail(request.accountId),
          accounts.getAccount(request.accountId),
        ])
        return to
          ? planDeclinedMessage(to, { plan: request.plan, currentPlan: account.plan, reason, usageLink })
          : undefined
      }, mailFailed)
      return decided
    },
  }
}

export type PlanRequests = ReturnType<typeof createPlanRequests>
