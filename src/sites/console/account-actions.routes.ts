// The account actions: for each, GET shows its confirmation page and POST does it, then 303 back to the account page
// with a notice. Here those of admins (Change plan, Suspend, Reactivate, Revoke, Reset second factors, Delete
// account); the two support may use too (Lift ban, Resend verification) are in account-support-actions.routes.ts.
// Every handler first checks the role on the server (c.require), so a refused operator changes nothing and sees 403,
// whatever the page showed. The plugin checked the CSRF token before. Bad input gets its page back with a 400 and what
// was wrong.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { type Account, AccountInputError, AccountStateError } from '../../modules/accounts/accounts.repository.js'
import { checkReason } from '../../modules/accounts/account-changes.js'
import { pageResponses } from '../kit/page-schemas.js'
import { PageError } from '../kit/reply.js'
import { when } from '../kit/when.js'
import { planPage, reactivatePage, reasonPage, resetSecondFactorsPage, revokePage } from './account-actions.pages.js'
import { parsePlan } from './account-plan.js'
import { backToAccount, confirmPage } from './account-replies.js'
import { keyOf, liveAccount, ownerMailer } from './account-lookups.js'
import { supportActionsRoutes } from './account-support-actions.routes.js'
import { AccountKeyParams, AccountParams, ConfirmBody, PlanBody, ReasonBody } from './account.schemas.js'
import type { OperatorConsole } from './console.context.js'
import { secondFactorsResetMessage } from './mail-messages.js'

const hide = true
const confirmResponses = pageResponses({ 200: 'The confirmation step' })
const actionResponses = pageResponses({})

/** The message of a refused change, as a sentence. */
const sentence = (message: string) =>
  `${message.charAt(0).toUpperCase()}${message.slice(1)}${/[.!?]$/.test(message) ? '' : '.'}`

/** A reason an admin must give (kept in the audit log): its text, or what is wrong with it (`missing`: blank). */
function requiredReason(typed: string, missing: string): { text: string } | { problem: string } {
  try {
    return { text: checkReason(typed, true)! }
  } catch (error) {
    if (!(error instanceof AccountInputError)) throw error
    return { problem: typed.trim() === '' ? missing : sentence(error.message) }
  }
}

export async function accountActionsRoutes(app: FastifyInstance, c: OperatorConsole): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()

  // Change plan (admin).
  r.get(
    '/accounts/:id/plan',
    { schema: { hide, params: AccountParams, response: confirmResponses } },
    async (request, reply) => {
      c.require(request, 'admin')
      const ctx = c.context(request, reply)
      const account = await liveAccount(c, request.params.id)
      return confirmPage(reply, ctx, 'Change plan', 200, planPage(ctx.csrf, account))
    },
  )
  r.post(
    '/accounts/:id/plan',
    { schema: { hide, params: AccountParams, body: PlanBody, response: actionResponses } },
    async (request, reply) => {
      c.require(request, 'admin')
      const account = await liveAccount(c, request.params.id)
      const { plan, per_minute: perMinute, per_day: perDay } = request.body
      const parsed = parsePlan(plan, perMinute, perDay)
      if ('problem' in parsed) {
        const ctx = c.context(request, reply)
        return confirmPage(
          reply,
          ctx,
          'Change plan',
          400,
          planPage(ctx.csrf, account, { plan, perMinute, perDay, error: parsed.problem }),
        )
      }
      const changed = await c.accounts.setPlan({ id: account.id, ...parsed, actor: c.actor(request) })
      const same =
        changed.plan === account.plan &&
        changed.quota.perMinute === account.quota.perMinute &&
        changed.quota.perDay === account.quota.perDay
      return backToAccount(reply, account, same ? 'unchanged' : 'plan')
    },
  )

  // Suspend and Delete account (admin): each needs a reason.
  for (const kind of ['suspend', 'delete'] as const) {
    const title = kind === 'suspend' ? 'Suspend the account' : 'Delete the account'
    r.get(
      `/accounts/:id/${kind}`,
      { schema: { hide, params: AccountParams, response: confirmResponses } },
      async (request, reply) => {
        c.require(request, 'admin')
        const ctx = c.context(request, reply)
        const account = await liveAccount(c, request.params.id)
        return confirmPage(reply, ctx, title, 200, reasonPage(ctx.csrf, account, kind))
      },
    )
    r.post(
      `/accounts/:id/${kind}`,
      { schema: { hide, params: AccountParams, body: ReasonBody, response: actionResponses } },
      async (request, reply) => {
        c.require(request, 'admin')
        const account = await liveAccount(c, request.params.id)
        const typed = request.body.reason ?? ''
        const reason = requiredReason(typed, 'Give a reason: it is kept in the audit log.')
        if ('problem' in reason) {
          const ctx = c.context(request, reply)
          const content = reasonPage(ctx.csrf, account, kind, { reason: typed, error: reason.problem })
          return confirmPage(reply, ctx, title, 400, content)
        }
        const actor = c.actor(request)
        if (kind === 'delete') {
          await c.accounts.deleteAccount(account.id, { actor, reason: reason.text })
          return backToAccount(reply, account, 'deleted')
        }
        if (account.suspendedAt !== null) return backToAccount(reply, account, 'unchanged')
        try {
          await c.accounts.suspend({ accountId: account.id, reason: reason.text, actor })
        } catch (error) {
          if (error instanceof AccountStateError) throw new PageError(400, 'Not suspended', sentence(error.message))
          throw error
        }
        return backToAccount(reply, account, 'suspended')
      },
    )
  }

  // Reactivate (admin).
  r.get(
    '/accounts/:id/reactivate',
    { schema: { hide, params: AccountParams, response: confirmResponses } },
    async (request, reply) => {
      c.require(request, 'admin')
      const ctx = c.context(request, reply)
      const account = await liveAccount(c, request.params.id)
      return confirmPage(reply, ctx, 'Reactivate the account', 200, reactivatePage(ctx.csrf, account))
    },
  )
  r.post(
    '/accounts/:id/reactivate',
    { schema: { hide, params: AccountParams, body: ConfirmBody, response: actionResponses } },
    async (request, reply) => {
      c.require(request, 'admin')
      const account = await liveAccount(c, request.params.id)
      if (account.suspendedAt === null) return backToAccount(reply, account, 'unchanged')
      await c.accounts.reactivate({ accountId: account.id, actor: c.actor(request) })
      return backToAccount(reply, account, 'reactivated')
    },
  )

  // Revoke a key (admin).
  r.get(
    '/accounts/:id/keys/:keyId/revoke',
    { schema: { hide, params: AccountKeyParams, response: confirmResponses } },
    async (request, reply) => {
      c.require(request, 'admin')
      const ctx = c.context(request, reply)
      const account = await liveAccount(c, request.params.id)
      const key = await keyOf(c, account, request.params.keyId)
      return confirmPage(reply, ctx, 'Revoke a key', 200, revokePage(ctx.csrf, account, key))
    },
  )
  r.post(
    '/accounts/:id/keys/:keyId/revoke',
    { schema: { hide, params: AccountKeyParams, body: ConfirmBody, response: actionResponses } },
    async (request, reply) => {
      c.require(request, 'admin')
      const account = await liveAccount(c, request.params.id)
      const key = await keyOf(c, account, request.params.keyId)
      if (key.revokedAt !== null) return backToAccount(reply, account, 'unchanged')
      await c.accounts.revokeApiKey(key.id, { accountId: account.id, actor: c.actor(request) })
      return backToAccount(reply, account, 'revoked')
    },
  )

  // Reset second factors (admin), once the person was verified out of band: the portal user's app, passkeys and
  // recovery codes go, and they are mailed that it was done (so only where this console can mail them).
  async function factorsOf(account: Account) {
    const user = await c.verification.userOf(account.id)
    if (!user)
      throw new PageError(
        400,
        'No portal user',
        `The account ${account.id} has no portal user (it was made with the CLI): it has no second factors.`,
      )
    return { user, status: await c.twoFactor.status(user.id) }
  }
  r.get(
    '/accounts/:id/second-factors',
    { schema: { hide, params: AccountParams, response: confirmResponses } },
    async (request, reply) => {
      c.require(request, 'admin')
      ownerMailer(c)
      const ctx = c.context(request, reply)
      const account = await liveAccount(c, request.params.id)
      const { user, status } = await factorsOf(account)
      if (!status.enabled)
        throw new PageError(
          400,
          'Two-factor log-in is off',
          `The owner of ${account.id} has no second factor set up: there is nothing to reset.`,
        )
      const content = resetSecondFactorsPage(ctx.csrf, account, user, status)
      return confirmPage(reply, ctx, 'Reset second factors', 200, content)
    },
  )
  r.post(
    '/accounts/:id/second-factors',
    { schema: { hide, params: AccountParams, body: ReasonBody, response: actionResponses } },
    async (request, reply) => {
      c.require(request, 'admin')
      const actor = c.actor(request)
      const mailer = ownerMailer(c)
      const account = await liveAccount(c, request.params.id)
      const { user, status } = await factorsOf(account)
      if (!status.enabled) return backToAccount(reply, account, 'unchanged')
      const typed = request.body.reason ?? ''
      const reason = requiredReason(typed, 'Say how you verified them: it is kept in the audit log.')
      if ('problem' in reason) {
        const ctx = c.context(request, reply)
        const values = { reason: typed, error: reason.problem }
        const content = resetSecondFactorsPage(ctx.csrf, account, user, status, values)
        return confirmPage(reply, ctx, 'Reset second factors', 400, content)
      }
      // The audit entry is written in the reset's transaction (with the operator as its actor).
      await c.twoFactor.resetAll({ id: user.id, account_id: account.id, email: user.email }, actor, reason.text)
      const portal = c.config.publicUrl
      await mailer.send(
        secondFactorsResetMessage(user.email, {
          at: when(new Date(c.clock.now()).toISOString()),
          accountLink: `${portal}/portal/account`,
          resetLink: `${portal}/portal/reset-request`,
        }),
      )
      return backToAccount(reply, account, 'second-factors-reset')
    },
  )

  await supportActionsRoutes(app, c)
}
