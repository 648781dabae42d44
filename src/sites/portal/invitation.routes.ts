// An invitation's link (/portal/invitations/TOKEN, mailed to the invited address; single use, 7 days). Accepting
// needs that address: a person logged in with another one is told to log in with the invited one; a person with a
// log-in for it logs in first (and comes back here); a person without one signs up from the link, which verifies
// their address (it reached them). The invitation stays with the address it was sent to: a user who changed theirs
// since cannot accept it. Accepted, the session works in the invited account.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { emailKeyOf } from '../../kernel/email-address.js'
import { hashPassword, passwordProblem } from '../../kernel/passwords.js'
import { integratorActor } from '../../modules/integrators/actor.js'
import type { Invitation } from '../../modules/teams/invitations.repository.js'
import { html, type Html } from '../kit/html.js'
import { formBody, pageQuery, pageResponses } from '../kit/page-schemas.js'
import { redirect, sendPage } from '../kit/reply.js'
import { passwordInput } from './account.pages.js'
import { csrfField, notice, page } from './layout.js'
import { ROLE_NAMES } from './membership.js'
import type { Portal } from './portal.context.js'
import { signInFlow } from './sign-in.js'

const TITLE = 'Invitation'
const TokenParams = Type.Object({ token: Type.String({ maxLength: 200 }) })
const UNUSABLE =
  'This invitation link has expired, was revoked, was replaced by a newer one or was already used. Ask whoever ' +
  'invited ' +
  'you for a new one.'

export async function invitationRoutes(app: FastifyInstance, portal: Portal): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()
  const { teams, repo } = portal
  const flow = signInFlow(portal)
  const hide = true
  const show = (request: FastifyRequest, reply: FastifyReply, status: number, body: Html) =>
    sendPage(reply, status, page(portal.context(request, reply), TITLE, body))
  const about = async (inv: Invitation) => {
    const name = (await portal.accounts.getAccount(inv.accountId)).name
    return html`<p>You are invited to the account <strong>${name}</strong> as \
<strong>${ROLE_NAMES[inv.role]}</strong>. The invitation is for <strong>${inv.email}</strong>.</p>`
  }

  /** The page a link opens, for who is looking. */
  async function invitationPage(request: FastifyRequest, reply: FastifyReply, token: string, error?: string) {
    const found = await teams.invitation(token)
    if (!found?.usable) return show(request, reply, 400, notice('error', UNUSABLE))
    const inv = found.invitation
    const csrf = portal.context(request, reply).csrf
    const user = request.visitor.user
    const intro = html`${notice('error', error)}${await about(inv)}`
    if (user && emailKeyOf(user.email) === inv.emailKey)
      return show(
        request,
        reply,
        200,
        html`${intro}<form method="post" action="/portal/invitations/${token}">\
${csrfField(csrf)}<button type="submit">Accept invitation</button></form>`,
      )
    if (user)
      return show(
        request,
        reply,
        403,
        html`${intro}<p>You are logged in as <strong>${user.email}</strong>. Log out, \
then log in with <strong>${inv.email}</strong> (or sign up with it from this link) to accept.</p>`,
      )
    const next = encodeURIComponent(`/portal/invitations/${token}`)
    if (await repo.findUserByEmail(inv.email))
      return show(
        request,
        reply,
        200,
        html`${intro}<p><a href="/portal/login?next=${next}">Log in</a> with \
${inv.email} to accept.</p>`,
      )
    return show(
      request,
      reply,
      200,
      html`${intro}<p>Choose a password to make your Petstore log-in; this link \
verifies your address.</p><form method="post" action="/portal/invitations/${token}/signup" class="stacked">\
${csrfField(csrf)}<input type="text" name="username" value="${inv.email}" autocomplete="username" hidden>
${passwordInput('password', 'password', 'Password', true)}
<div><button type="submit">Sign up and join</button></div></form>`,
    )
  }

  r.get(
    '/invitations/:token',
    {
      schema: {
        hide,
        params: TokenParams,
        querystring: pageQuery({}),
        response: pageResponses({ 200: 'The invitation' }),
      },
    },
    (request, reply) => invitationPage(request, reply, request.params.token),
  )

  r.post(
    '/invitations/:token',
    {
      schema: {
        hide,
        params: TokenParams,
        querystring: pageQuery({}),
        body: formBody({}),
        response: pageResponses({}),
      },
    },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return invitationPage(request, reply, request.params.token)
      const result = await teams.accept(
        request.params.token,
        { id: user.id, emailKey: emailKeyOf(user.email) },
        (accountId) => integratorActor({ ...user, account_id: accountId }, request.ip),
      )
      if (result.outcome !== 'joined') return invitationPage(request, reply, request.params.token)
      await repo.setSessionAccount(request.visitor.sessionId!, result.accountId)
      return redirect(reply, '/portal/keys')
    },
  )

  r.post(
    '/invitations/:token/signup',
    {
      schema: {
        hide,
        params: TokenParams,
        querystring: pageQuery({}),
        body: formBody({
          password: Type.String({ maxLength: 4096 }),
          username: Type.Optional(Type.String({ maxLength: 320 })),
        }),
        response: pageResponses({}),
      },
    },
    async (request, reply) => {
      const { token } = request.params
      const found = await teams.invitation(token)
      if (!found?.usable || request.visitor.user || (await repo.findUserByEmail(found.invitation.email)))
        return invitationPage(request, reply, token)
      const inv = found.invitation
      const problem = passwordProblem(request.body.password, { email: inv.email })
      if (problem) return invitationPage(request, reply, token, problem)
      const passwordHash = await hashPassword(request.body.password, portal.config.passwordHashCost)
      const user = await repo.createUser({ email: inv.email, passwordHash, address: request.ip })
      if (!user) return invitationPage(request, reply, token)
      await repo.verifiedByInvitation(user.id, request.ip)
      const result = await teams.accept(token, { id: user.id, emailKey: inv.emailKey }, (accountId) =>
        integratorActor({ ...user, account_id: accountId }, request.ip),
      )
      const joined = result.outcome === 'joined' ? result.accountId : undefined
      const fresh = (await repo.findUser(user.id))!
      return flow.signIn(request, reply, fresh, '/portal/keys', joined)
    },
  )
}
