// /portal/account: change the password or the address, see and end sessions, delete the account. Every change
// but "Log out other sessions" asks for the current password, and a wrong one counts as a failed log-in
// (throttle.ts), so this page is no way around the log-in limits. A new address takes effect only when the link
// sent to it is opened (/portal/account/email/TOKEN: GET shows a form, POST changes); the answer to asking for
// one is the same whether or not the address has an account.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { linkUnusable } from './account.pages.js'
import { integratorActor } from '../../modules/integrators/actor.js'
import { emailKeyOf, parseEmailAddress } from '../../kernel/email-address.js'
import { html } from '../kit/html.js'
import { page } from './layout.js'
import {
  accountDeletedMessage,
  EMAIL_CHANGE_TTL_MS,
  emailChangeLinkMessage,
  emailChangedMessage,
  emailChangeRequestedMessage,
  emailChangeTakenMessage,
  passwordChangedMessage,
} from './mail-messages.js'
import { hashPassword, passwordProblem } from '../../kernel/passwords.js'
import { PORTAL_BOUNDS, type Portal } from './portal.context.js'
import type { PortalUser } from '../../modules/integrators/integrators.repository.js'
import {
  AccountQuery,
  ChangeEmailBody,
  ChangePasswordBody,
  CsrfOnlyBody,
  NoQuery,
  pageResponses,
  PasswordOnlyBody,
  TokenParams,
} from './portal.schemas.js'
import { redirect, sendPage } from '../kit/reply.js'
import { loginFor } from '../kit/safe-next.js'
import { SESSION_IDLE_MS } from './session.js'
import {
  emailChangeConfirm,
  emailChangeSent,
  settingsPage,
  VERIFY_FIRST,
  type SettingsInput,
} from './settings.pages.js'
import { mailFailed } from './signup.routes.js'
import { passwordConfirmation } from './throttle.js'
import { twoFactorSection } from './two-factor.pages.js'

const TITLE = 'Account settings'
const WRONG_PASSWORD = 'The password is incorrect.'
const askAgain = html`Ask for a new link on your <a href="/portal/account">account page</a>.`

export async function settingsRoutes(app: FastifyInstance, portal: Portal): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()
  const { settings, mailer, sessions, accounts } = portal
  const passwordConfirms = passwordConfirmation({ repo: portal.repo, clock: portal.clock })
  const hide = true
  const toLogIn = (reply: FastifyReply) => redirect(reply, loginFor('/portal/account', PORTAL_BOUNDS))

  /** The settings page with this status, a refused form's message, or what was just done. */
  async function settingsAnswer(
    request: FastifyRequest,
    reply: FastifyReply,
    user: PortalUser,
    status: number,
    extra: Partial<SettingsInput> = {},
  ) {
    const ctx = portal.context(request, reply)
    const list = await settings.sessionsOf(user.id, request.visitor.sessionId, SESSION_IDLE_MS)
    return sendPage(
      reply,
      status,
      page(
        ctx,
        TITLE,
        settingsPage({
          csrf: ctx.csrf,
          email: user.email,
          verified: user.verified_at !== null,
          sessions: list,
          twoFactor: twoFactorSection({
            csrf: ctx.csrf,
            status: await portal.twoFactor.status(user.id),
            verified: user.verified_at !== null,
            appAvailable: portal.twoFactor.appAvailable,
          }),
          mayDelete: ctx.can.deleteAccount,
          ...extra,
        }),
      ),
    )
  }

  r.get(
    '/account',
    { schema: { hide, querystring: AccountQuery, response: pageResponses({ 200: 'Account settings' }) } },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return toLogIn(reply)
      return settingsAnswer(request, reply, user, 200, { done: request.query.done })
    },
  )

  r.post(
    '/account/password',
    {
      config: { sudo: 'change your password' },
      schema: {
        hide,
        querystring: NoQuery,
        body: ChangePasswordBody,
        response: pageResponses({ 429: 'Too many wrong passwords' }),
      },
    },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return toLogIn(reply)
      const { current_password: current, new_password: next } = request.body
      const refuse = (message: string) =>
        settingsAnswer(request, reply, user, 400, { error: { form: 'password', message } })
      if (!(await passwordConfirms(request, user, current)))
        return refuse(`${WRONG_PASSWORD} Your password is unchanged.`)
      if (next === current) return refuse('The new password is the current one: choose another.')
      const problem = passwordProblem(next, { email: user.email })
      if (problem) return refuse(problem)
      await settings.changePassword(
        user.id,
        await hashPassword(next, portal.config.passwordHashCost),
        request.visitor.sessionId!,
        request.ip,
      )
      mailer.sendLater(passwordChangedMessage(user.email, portal.link('/portal/reset-request')), mailFailed(request))
      return redirect(reply, '/portal/account?done=password')
    },
  )

  r.post(
    '/account/email',
    {
      config: { sudo: 'change your email address' },
      schema: {
        hide,
        querystring: NoQuery,
        body: ChangeEmailBody,
        response: pageResponses({
          200: 'A link was sent to the new address',
          403: 'Refused: another origin or no form token, or the current address is not verified yet',
          429: 'Too many wrong passwords',
        }),
      },
    },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return toLogIn(reply)
      const refuse = (message: string, status = 400) =>
        settingsAnswer(request, reply, user, status, {
          error: { form: 'email', message },
          newEmail: request.body.new_email,
        })
      // Until the address is verified, whoever is logged in may be someone who signed up in its owner's name: a link
      // to an address of their choosing would let them take the account once the owner has verified it.
      if (user.verified_at === null) return refuse(`Your address is not verified yet. ${VERIFY_FIRST}`, 403)
      const parsed = parseEmailAddress(request.body.new_email)
      if ('problem' in parsed) return refuse(parsed.problem)
      if (parsed.key === emailKeyOf(user.email)) return refuse('This is already your address.')
      if (!(await passwordConfirms(request, user, request.body.password)))
        return refuse(`${WRONG_PASSWORD} Your address is unchanged.`)
      // Off the request path, so the answer takes the same time whether or not the new address has an account. The
      // token is issued either way (at most one a minute); only a free address is sent it. A taken one is told
      // that nothing changed, and the old address hears of the request in both cases.
      mailer.sendLater(
        async () => {
          const token = await settings.issueEmailToken(user.id, parsed.email, EMAIL_CHANGE_TTL_MS)
          if (!token) return undefined
          const taken = await portal.repo.findUserByEmail(parsed.email)
          await mailer.send(
            taken
              ? emailChangeTakenMessage(parsed.email)
              : emailChangeLinkMessage(parsed.email, portal.link(`/portal/account/email/${token}`)),
          )
          return emailChangeRequestedMessage(user.email, parsed.email, portal.link('/portal/reset-request'))
        },
        mailFailed(request),
        reply,
      )
      const ctx = portal.context(request, reply)
      return sendPage(reply, 200, page(ctx, 'Check your new address', emailChangeSent(parsed.email, user.email)))
    },
  )

  // The link sent to the new address: a page with the form that changes it (opening a link changes nothing).
  r.get(
    '/account/email/:token',
    {
      schema: {
        hide,
        params: TokenParams,
        querystring: NoQuery,
        response: pageResponses({ 200: 'Confirm the new address' }),
      },
    },
    async (request, reply) => {
      const ctx = portal.context(request, reply)
      const newEmail = await settings.emailTokenTarget(request.params.token)
      if (!newEmail) return sendPage(reply, 400, page(ctx, 'Confirm your new address', linkUnusable(askAgain)))
      return sendPage(
        reply,
        200,
        page(ctx, 'Confirm your new address', emailChangeConfirm(ctx.csrf, request.params.token, newEmail)),
      )
    },
  )

  r.post(
    '/account/email/:token',
    {
      schema: {
        hide,
        params: TokenParams,
        querystring: NoQuery,
        body: CsrfOnlyBody,
        response: pageResponses({ 200: 'The address is changed', 409: 'Another account has the address' }),
      },
    },
    async (request, reply) => {
      const ctx = portal.context(request, reply)
      const result = await settings.applyEmailChange(request.params.token, emailKeyOf, request.ip)
      if (result.outcome === 'unusable')
        return sendPage(reply, 400, page(ctx, 'Confirm your new address', linkUnusable(askAgain)))
      if (result.outcome === 'taken') {
        const message = html`<p><strong>${result.newEmail}</strong> has an account of its own now, so your address was \
not changed. To use it for this account, delete that other account first, then ask for a new link on your <a \
href="/portal/account">account page</a>.</p>`
        return sendPage(reply, 409, page(ctx, 'Address not changed', message))
      }
      // The old address hears of it: if it was not its owner, they learn at once (and whom to ask).
      mailer.sendLater(emailChangedMessage(result.oldEmail, result.newEmail), mailFailed(request))
      const mine = request.visitor.user?.id === result.userId
      const after = mine ? { ...ctx, email: result.newEmail } : ctx
      const next = mine
        ? html`<a href="/portal/account">Back to your account</a>`
        : html`<a href="/portal/login">Log in</a> with it`
      return sendPage(
        reply,
        200,
        page(
          after,
          'Address changed',
          html`<p>Your account's address is now <strong>${result.newEmail}</strong>. ${next}.</p>`,
        ),
      )
    },
  )

  r.post(
    '/account/sessions/logout-others',
    { schema: { hide, querystring: NoQuery, body: CsrfOnlyBody, response: pageResponses({}) } },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return toLogIn(reply)
      await settings.endOtherSessions(user.id, request.visitor.sessionId!)
      return redirect(reply, '/portal/account?done=sessions')
    },
  )

  r.post(
    '/account/delete',
    {
      config: { sudo: 'delete your account' },
      schema: {
        hide,
        querystring: NoQuery,
        body: PasswordOnlyBody,
        response: pageResponses({ 200: 'The account is deleted', 429: 'Too many wrong passwords' }),
      },
    },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return toLogIn(reply)
      if (!(await passwordConfirms(request, user, request.body.password))) {
        return settingsAnswer(request, reply, user, 400, {
          error: { form: 'delete', message: `${WRONG_PASSWORD} Your account was not deleted.` },
        })
      }
      // The accounts service's deletion (an operator's too): keys refused on every instance, portal user gone.
      await accounts.deleteAccount(user.account_id, { actor: integratorActor(user, request.ip) })
      await sessions.end(reply, request.visitor)
      mailer.sendLater(accountDeletedMessage(user.email), mailFailed(request))
      const message = html`<p>Your account is deleted: its API keys no longer work, and its pets, orders and messages \
are removed within a day. You can <a href="/portal/signup">sign up</a> again with the same address at any time.</p>`
      return sendPage(reply, 200, page({ csrf: '' }, 'Account deleted', message))
    },
  )
}
