// /portal/members: the account's members and invitations (members.pages.ts), and switching between one's accounts.
// Which role may post what is membership.ts's table (invite, roles, removal: admin; the two-factor requirement:
// owner; leaving and switching: every member); the teams service checks the rest (an admin only touches members
// below owner, the last owner stays). Every change is an audit entry (written by the service).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { emailKeyOf, parseEmailAddress } from '../../kernel/email-address.js'
import { integratorActor } from '../../modules/integrators/actor.js'
import type { Invitation } from '../../modules/teams/invitations.repository.js'
import { isRole } from '../../modules/teams/roles.js'
import { formBody, pageQuery, pageResponses } from '../kit/page-schemas.js'
import { PageError, redirect, sendPage } from '../kit/reply.js'
import { page } from './layout.js'
import { membersPage, type MembersInput } from './members.pages.js'
import { ROLE_NAMES } from './membership.js'
import type { Portal } from './portal.context.js'
import { mailFailed } from './signup.routes.js'
import { invitationMessage, removedMessage } from './team-mail.js'

const TITLE = 'Members'
const hide = true
const NoQuery = pageQuery({})
const DoneQuery = pageQuery({ done: Type.Optional(Type.String({ maxLength: 40 })) })
const InviteBody = formBody({ email: Type.String({ maxLength: 320 }), role: Type.String({ maxLength: 20 }) })
const RoleBody = formBody({ role: Type.String({ maxLength: 20 }) })
const SwitchBody = formBody({ account: Type.String({ maxLength: 100 }) })
const RequireBody = formBody({ required: Type.String({ maxLength: 5 }) })
const CsrfOnly = formBody({})
const UserParams = Type.Object({ userId: Type.String({ pattern: '^user_[0-9a-z]{1,64}$' }) })
const InvitationParams = Type.Object({ invitationId: Type.String({ pattern: '^inv_[0-9a-f]{1,64}$' }) })
const post = (responses: Record<number, string> = {}) => ({
  hide,
  querystring: NoQuery,
  response: pageResponses(responses),
})

export async function membersRoutes(app: FastifyInstance, portal: Portal): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()
  const { teams } = portal
  const accountName = async (id: string) => (await portal.accounts.getAccount(id)).name

  async function answer(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    extra: Partial<MembersInput> = {},
  ) {
    const me = request.member!
    const ctx = portal.context(request, reply)
    const input: MembersInput = {
      csrf: ctx.csrf,
      me,
      members: await teams.members(me.accountId),
      invitations: await teams.pendingInvitations(me.accountId),
      requireTwoFactor: await teams.requiresTwoFactor(me.accountId),
      ...extra,
    }
    return sendPage(reply, status, page(ctx, TITLE, membersPage(input)))
  }
  /** The invitation's link, to its address, from the member who sent (or resent) it. */
  async function mailInvitation(request: FastifyRequest, invitation: Invitation, token: string) {
    const message = {
      account: await accountName(invitation.accountId),
      inviter: request.visitor.user!.email,
      role: ROLE_NAMES[invitation.role].toLowerCase(),
      link: portal.link(`/portal/invitations/${token}`),
    }
    portal.mailer.sendLater(invitationMessage(invitation.email, message), mailFailed(request))
  }
  const actor = (request: FastifyRequest) => integratorActor(request.visitor.user!, request.ip)
  const notFound = () => new PageError(404, 'Not found', 'No such member or invitation in this account.')
  const refusal = (outcome: string) =>
    outcome === 'last_owner'
      ? new PageError(409, 'Not changed', 'An account always has an owner: make another member owner first.')
      : outcome === 'not_allowed'
        ? new PageError(403, 'Not allowed', 'An admin manages members below owner only. Nothing was changed.')
        : notFound()

  r.get(
    '/members',
    { schema: { hide, querystring: DoneQuery, response: pageResponses({ 200: 'Members' }) } },
    (request, reply) => answer(request, reply, 200, { done: request.query.done }),
  )

  r.post(
    '/members/invite',
    { schema: { ...post({ 429: 'Too many invitations today' }), body: InviteBody } },
    async (request, reply) => {
      const me = request.member!
      const values = { email: request.body.email, role: request.body.role }
      const again = (status: number, error: string) => answer(request, reply, status, { values, error })
      const parsed = parseEmailAddress(request.body.email)
      if ('problem' in parsed) return again(400, parsed.problem)
      if (!isRole(request.body.role)) return again(400, 'Choose a role from the list.')
      const members = await teams.members(me.accountId)
      const result = await teams.invite({
        by: me,
        email: parsed.email,
        emailKey: parsed.key,
        role: request.body.role,
        memberEmailKeys: members.map((m) => emailKeyOf(m.email)),
        actor: actor(request),
      })
      switch (result.outcome) {
        case 'member':
          return again(400, `${parsed.email} is already a member of this account.`)
        case 'role_not_allowed':
          return again(403, 'An admin invites members below owner only.')
        case 'too_many_today':
          return again(429, 'This account sent 50 invitations in the last 24 hours: try again later.')
        case 'too_many_members':
          return again(409, 'An account has at most 100 members and open invitations: remove one first.')
      }
      await mailInvitation(request, result.invitation, result.token)
      return redirect(reply, '/portal/members?done=invited')
    },
  )

  for (const action of ['resend', 'revoke'] as const) {
    r.post(
      `/members/invitations/:invitationId/${action}`,
      { schema: { ...post({ 404: 'No such invitation' }), params: InvitationParams, body: CsrfOnly } },
      async (request, reply) => {
        const me = request.member!
        const id = request.params.invitationId
        if (action === 'revoke') {
          if (!(await teams.revoke(me, id, actor(request)))) throw notFound()
          return redirect(reply, '/portal/members?done=revoked')
        }
        const renewed = await teams.resend(me, id)
        if (!renewed) throw notFound()
        const { invitation, token } = renewed
        await mailInvitation(request, invitation, token)
        return redirect(reply, '/portal/members?done=resent')
      },
    )
  }

  r.post(
    '/members/:userId/role',
    {
      schema: {
        ...post({ 403: 'Not allowed', 404: 'No such member', 409: 'The last owner' }),
        params: UserParams,
        body: RoleBody,
      },
    },
    async (request, reply) => {
      if (!isRole(request.body.role)) throw new PageError(400, 'Not changed', 'Choose a role from the list.')
      const result = await teams.changeRole(request.member!, request.params.userId, request.body.role, actor(request))
      if (result.outcome !== 'done') throw refusal(result.outcome)
      return redirect(reply, '/portal/members?done=role')
    },
  )

  r.post(
    '/members/:userId/remove',
    {
      schema: {
        ...post({ 403: 'Not allowed', 404: 'No such member', 409: 'The last owner' }),
        params: UserParams,
        body: CsrfOnly,
      },
    },
    async (request, reply) => {
      const me = request.member!
      if (request.params.userId === me.userId)
        throw new PageError(400, 'Not removed', 'To leave, use "Leave this account".')
      const result = await teams.remove(me, request.params.userId, actor(request))
      if (result.outcome !== 'done') throw refusal(result.outcome)
      const by = request.visitor.user!.email
      portal.mailer.sendLater(
        removedMessage(result.email, { account: await accountName(me.accountId), by }),
        mailFailed(request),
      )
      return redirect(reply, '/portal/members?done=removed')
    },
  )

  r.post(
    '/members/leave',
    { schema: { ...post({ 409: 'The last owner' }), body: CsrfOnly } },
    async (request, reply) => {
      const result = await teams.leave(request.member!, actor(request))
      if (result.outcome !== 'done') throw refusal(result.outcome)
      // Leaving ended this user's sessions in the account, this one too: log in again to work in another.
      return redirect(reply, '/portal/login')
    },
  )

  r.post(
    '/members/switch',
    { schema: { ...post({ 404: 'Not a member' }), body: SwitchBody } },
    async (request, reply) => {
      const user = request.visitor.user!
      const target = await teams.membership(user.id, request.body.account)
      if (!target) throw new PageError(404, 'Not found', 'You are not a member of that account.')
      await portal.repo.setSessionAccount(request.visitor.sessionId!, target.accountId)
      return redirect(reply, '/portal/keys')
    },
  )

  r.post('/members/two-factor', { schema: { ...post(), body: RequireBody } }, async (request, reply) => {
    await teams.setRequireTwoFactor(request.member!.accountId, request.body.required === 'yes', actor(request))
    return redirect(reply, '/portal/members?done=two-factor')
  })
}
