// A forgotten password: ask for a link (the same answer, in the same time, whether or not the address has an
// account: the look-up, the token and the mail happen off the request path), open it, choose a new password.
// A reset ends every session and lifts the log-in throttle for that email.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { linkUnusable, newPasswordForm, resetRequestedPage, resetRequestForm } from './account.pages.js'
import { parseEmailAddress } from '../../kernel/email-address.js'
import { html } from '../kit/html.js'
import { page } from './layout.js'
import { resetMessage, RESET_TTL_MS } from './mail-messages.js'
import { hashPassword, passwordProblem } from '../../kernel/passwords.js'
import { sendPage } from '../kit/reply.js'
import type { Portal } from './portal.context.js'
import { EmailBody, NewPasswordBody, NoQuery, pageResponses, TokenParams, TokenQuery } from './portal.schemas.js'
import { mailFailed } from './signup.routes.js'

const askAgain = html`<a href="/portal/reset-request">Ask for a new link</a>.`

export async function resetRoutes(app: FastifyInstance, portal: Portal): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()
  const { repo, mailer, sessions } = portal
  const hide = true

  r.get(
    '/reset-request',
    { schema: { hide, querystring: NoQuery, response: pageResponses({ 200: 'Ask for a reset link' }) } },
    async (request, reply) => {
      const ctx = portal.context(request, reply)
      return sendPage(reply, 200, page(ctx, 'Reset your password', resetRequestForm(ctx.csrf)))
    },
  )

  r.post(
    '/reset-request',
    {
      schema: {
        hide,
        querystring: NoQuery,
        body: EmailBody,
        response: pageResponses({ 200: 'A link was sent if the account exists' }),
      },
    },
    async (request, reply) => {
      const ctx = portal.context(request, reply)
      const parsed = parseEmailAddress(request.body.email)
      if ('problem' in parsed)
        return sendPage(
          reply,
          400,
          page(
            ctx,
            'Reset your password',
            resetRequestForm(ctx.csrf, { email: request.body.email, error: parsed.problem }),
          ),
        )
      mailer.sendLater(
        async () => {
          const user = await repo.findUserByEmail(parsed.email)
          // At most one link a minute (issueToken): the answer is the same either way.
          const token = user ? await repo.issueToken(user.id, 'reset', RESET_TTL_MS) : undefined
          return user && token ? resetMessage(user.email, portal.link(`/portal/reset/${token}`)) : undefined
        },
        mailFailed(request),
        reply,
      )
      return sendPage(reply, 200, page(ctx, 'Check your email', resetRequestedPage(parsed.email)))
    },
  )

  async function choosePage(request: FastifyRequest, reply: FastifyReply, token: string) {
    const ctx = portal.context(request, reply)
    if (!(await repo.tokenUsable(token, 'reset')))
      return sendPage(reply, 400, page(ctx, 'Choose a new password', linkUnusable(askAgain)))
    return sendPage(reply, 200, page(ctx, 'Choose a new password', newPasswordForm(ctx.csrf, token)))
  }
  r.get(
    '/reset/:token',
    {
      schema: {
        hide,
        params: TokenParams,
        querystring: NoQuery,
        response: pageResponses({ 200: 'Choose a new password' }),
      },
    },
    async (request, reply) => choosePage(request, reply, request.params.token),
  )
  // Links mailed before tokens moved into the path (`?token=`) keep working for their hour.
  r.get(
    '/reset',
    { schema: { hide, querystring: TokenQuery, response: pageResponses({ 200: 'Choose a new password' }) } },
    async (request, reply) => choosePage(request, reply, request.query.token ?? ''),
  )

  r.post(
    '/reset',
    {
      schema: {
        hide,
        querystring: NoQuery,
        body: NewPasswordBody,
        response: pageResponses({ 200: 'Password changed' }),
      },
    },
    async (request, reply) => {
      const { token, password } = request.body
      const ctx = portal.context(request, reply)
      const owner = await repo.tokenOwner(token, 'reset')
      if (!owner) return sendPage(reply, 400, page(ctx, 'Choose a new password', linkUnusable(askAgain)))
      // A refused password does not use the link up.
      const problem = passwordProblem(password, { email: owner.email })
      if (problem)
        return sendPage(reply, 400, page(ctx, 'Choose a new password', newPasswordForm(ctx.csrf, token, problem)))
      const passwordHash = await hashPassword(password, portal.config.passwordHashCost)
      // One transaction: the link used up, the new password, every session of the user ended (this browser's too),
      // the address verified (the link proved it) and every other pending link voided.
      const userId = await repo.resetPassword(token, passwordHash, request.ip)
      if (!userId) return sendPage(reply, 400, page(ctx, 'Choose a new password', linkUnusable(askAgain)))
      await repo.clearFailures(owner.email)
      await sessions.end(reply, request.visitor)
      const after = { ...ctx, email: undefined }
      return sendPage(
        reply,
        200,
        page(
          after,
          'Password changed',
          html`<p>Your password was changed and every session was logged out. <a href="/portal/login">Log in</a> with \
the new one.</p>`,
        ),
      )
    },
  )
}
