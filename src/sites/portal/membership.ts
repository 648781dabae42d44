// Which account a portal request works in, and what its member may do there (issue 38). Every request of a signed-
// in visitor resolves its session's account (the one it chose, if the user is still a member, else their first)
// and the member's role, so a role change applies from the next request and a removed member's session (ended
// by the removal) finds nothing. The visitor's user is given that account's id: every page and action, written
// for one account per user, works in it. The rules below say which role each account page and action needs, in
// one place; a request below it is refused (403 page) before its handler runs, so it changes nothing.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Membership } from '../../modules/teams/members.repository.js'
import { type MemberRole, roleAtLeast } from '../../modules/teams/roles.js'
import { PageError } from '../kit/reply.js'
import type { Portal } from './portal.context.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in visitor's membership in the account this request works in (none: a member of no account). */
    member?: Membership
  }
}

type Rule = { method: 'GET' | 'POST'; route: RegExp; role: MemberRole }

/** What each account page and action needs (first match wins); routes not listed are the user's own. */
const RULES: Rule[] = [
  { method: 'GET', route: /^\/portal\/keys\/(new|:keyId\/(roll|revoke|restrict))$/, role: 'developer' },
  { method: 'GET', route: /^\/portal\/keys(\/|$)/, role: 'viewer' },
  { method: 'POST', route: /^\/portal\/keys(\/|$)/, role: 'developer' },
  { method: 'GET', route: /^\/portal\/webhooks\/:endpointId\/(delete|rotate|secret)$/, role: 'developer' },
  { method: 'GET', route: /^\/portal\/webhooks(\/|$)/, role: 'viewer' },
  { method: 'POST', route: /^\/portal\/webhooks(\/|$)/, role: 'developer' },
  { method: 'GET', route: /^\/portal\/(usage|activity|members)$/, role: 'viewer' },
  { method: 'POST', route: /^\/portal\/plan-requests$/, role: 'admin' },
  { method: 'POST', route: /^\/portal\/members\/(leave|switch)$/, role: 'viewer' },
  { method: 'POST', route: /^\/portal\/members\/two-factor$/, role: 'owner' },
  { method: 'POST', route: /^\/portal\/members(\/|$)/, role: 'admin' },
  { method: 'POST', route: /^\/portal\/account\/delete$/, role: 'owner' },
]

const TWO_FACTOR_REQUIRED =
  'This account requires two-factor log-in: set up an authenticator app or a passkey on your account page first.'

export const ROLE_NAMES: Record<MemberRole, string> = {
  viewer: 'Viewer',
  developer: 'Developer',
  admin: 'Admin',
  owner: 'Owner',
}

/** The role a route needs, if it is an account's page or action. */
export function roleNeeded(method: string, route: string | undefined): MemberRole | undefined {
  if (route === undefined) return undefined
  return RULES.find((r) => r.method === method && r.route.test(route))?.role
}

/** Whether the request's member may do what `least` allows (for pages: show a control or not). */
export const may = (request: FastifyRequest, least: MemberRole): boolean =>
  request.member !== undefined && roleAtLeast(request.member.role, least)

export function membershipHooks(app: FastifyInstance, portal: Portal): void {
  // After the site's own preValidation hook (registered before this), which found the visitor.
  app.addHook('preValidation', async (request) => {
    const { user, sessionId } = request.visitor
    if (!user || !sessionId) return
    const chosen = await portal.repo.sessionAccount(sessionId)
    const member = await portal.teams.current(user.id, chosen)
    if (!member) return
    request.member = member
    request.visitor.user = { ...user, account_id: member.accountId }
    if (chosen !== member.accountId) await portal.repo.setSessionAccount(sessionId, member.accountId)
  })

  app.addHook('preHandler', async (request, reply) => {
    const needed = roleNeeded(request.method, request.routeOptions.url)
    const user = request.visitor.user
    if (!needed || !user) return
    if (!request.member)
      throw new PageError(
        403,
        'No account',
        'You are not a member of any account. Ask an owner or admin to invite you.',
      )
    if (!roleAtLeast(request.member.role, needed))
      throw new PageError(
        403,
        'Not allowed',
        `Your role in this account (${ROLE_NAMES[request.member.role]}) cannot do this. Nothing was changed; ask an ` +
          'owner or admin if you need it.',
      )
    // An account that requires two-factor log-in: a member without a second factor sets one up first.
    if (
      (await portal.teams.requiresTwoFactor(request.member.accountId)) &&
      !(await portal.twoFactor.status(user.id)).enabled
    ) {
      if (request.method === 'GET')
        return reply.code(303).header('location', '/portal/account?done=two-factor-required').send()
      throw new PageError(403, 'Two-factor log-in required', TWO_FACTOR_REQUIRED)
    }
  })
}
