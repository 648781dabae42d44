// New account (admin) and Send the password link again (support and admin), where the portal is on and mail goes
// out: the account is made for its owner's address, who chooses a password through the mailed link
// (modules/integrators/invitations.ts). The way accounts are opened when PORTAL_SIGNUP=closed.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { parseEmailAddress } from '../../kernel/email-address.js'
import type { Account } from '../../modules/accounts/accounts.repository.js'
import { html } from '../kit/html.js'
import { formBody, pageResponses } from '../kit/page-schemas.js'
import { PageError, sendPage } from '../kit/reply.js'
import { liveAccount, ownerMailer } from './account-lookups.js'
import { backToAccount, confirmPage } from './account-replies.js'
import { AccountParams, ConfirmBody } from './account.schemas.js'
import type { OperatorConsole } from './console.context.js'
import { INVITATION_PLANS, newAccountForm, type NewAccountValues } from './invitations.pages.js'
import { invitationAgainPage } from './account-actions.pages.js'
import { consolePage } from './layout.js'

const hide = true
const NewAccountBody = formBody({
  email: Type.Optional(Type.String({ maxLength: 400 })),
  plan: Type.Optional(Type.String({ maxLength: 100 })),
})

export async function invitationsRoutes(app: FastifyInstance, c: OperatorConsole): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()
  /** The invitations service and the mailer; a console without them (portal off, no mail) has no such pages. */
  const tools = () => {
    const mailer = ownerMailer(c)
    if (!c.invitations) throw new PageError(404, 'Not here', 'Accounts are made here only where the portal is on.')
    return { mailer, invitations: c.invitations }
  }

  r.get(
    '/accounts/new',
    { schema: { hide, response: pageResponses({ 200: 'The new account form' }) } },
    async (request, reply) => {
      c.require(request, 'admin')
      tools()
      const ctx = c.context(request, reply)
      return sendPage(reply, 200, consolePage(ctx, 'New account', newAccountForm(ctx.csrf)))
    },
  )
  r.post(
    '/accounts/new',
    { schema: { hide, body: NewAccountBody, response: pageResponses({ 400: 'What was wrong' }) } },
    async (request, reply) => {
      c.require(request, 'admin')
      const { mailer, invitations } = tools()
      const ctx = c.context(request, reply)
      const typed = { email: request.body.email ?? '', plan: request.body.plan ?? 'free' }
      const refuse = (error: NewAccountValues['error']) =>
        sendPage(reply, 400, consolePage(ctx, 'New account', newAccountForm(ctx.csrf, { ...typed, error })))
      const parsed = parseEmailAddress(typed.email)
      if ('problem' in parsed) return refuse(parsed.problem)
      if (!(INVITATION_PLANS as readonly string[]).includes(typed.plan))
        return refuse(`Choose one of the plans listed (${INVITATION_PLANS.join(', ')}).`)
      const actor = c.actor(request)
      const made = await invitations.invite({ email: parsed.email, plan: typed.plan, actor })
      if (made.outcome === 'taken')
        return refuse(
          made.accountId
            ? html`This address has an account already: <a href="/console/accounts/${made.accountId}">open it</a>.`
            : 'This address has an account already.',
        )
      await recordSent(made.accountId, parsed.email, actor)
      await mailer.send(made.message)
      return backToAccount(reply, { id: made.accountId }, 'invited')
    },
  )

  /** The account's user, who must still be waiting to choose a password. */
  async function invitedUser(account: Account) {
    const user = await c.verification.userOf(account.id)
    if (!user?.invited)
      throw new PageError(400, 'Nothing to send', `The owner of ${account.id} has chosen a password already.`)
    return user
  }
  r.get(
    '/accounts/:id/invitation',
    { schema: { hide, params: AccountParams, response: pageResponses({ 200: 'The confirmation step' }) } },
    async (request, reply) => {
      c.require(request, 'support')
      tools()
      const ctx = c.context(request, reply)
      const account = await liveAccount(c, request.params.id)
      const user = await invitedUser(account)
      return confirmPage(reply, ctx, 'Send the password link again', 200, invitationAgainPage(ctx.csrf, account, user))
    },
  )
  r.post(
    '/accounts/:id/invitation',
    { schema: { hide, params: AccountParams, body: ConfirmBody, response: pageResponses({}) } },
    async (request, reply) => {
      c.require(request, 'support')
      const { mailer, invitations } = tools()
      const account = await liveAccount(c, request.params.id)
      const user = await invitedUser(account)
      const message = await invitations.again(user)
      if (!message) return backToAccount(reply, account, 'verification-recent')
      await recordSent(account.id, user.email, c.actor(request))
      await mailer.send(message)
      return backToAccount(reply, account, 'invitation-again')
    },
  )

  // The address is the account's own (no secret); the link's token is never recorded.
  const recordSent = (accountId: string, email: string, actor: ReturnType<OperatorConsole['actor']>) =>
    c.audit.record(actor, {
      action: 'account.invitation_sent',
      accountId,
      target: { kind: 'account', id: accountId },
      changes: { email },
    })
}
