// The accounts the page frame's switcher offers (issue 38; layout.ts draws it): for a page (a GET) of a signed-in
// member, after membership.ts found the account the request works in. The user's memberships are one read of
// account_members by its user index; their accounts' names a second, only when there is more than one, so a user of
// one account gets no switcher and no read of names. Requests that change something (POST) read nothing: they
// answer with a redirect, and a form shown again after a refusal shows no switcher. Computed before the role
// check, so the 403 page of a role too low can still switch to another account.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AccountChoice } from './layout.js'
import { ROLE_NAMES } from './membership.js'
import type { Portal } from './portal.context.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in member's accounts when more than one (the current one marked); absent otherwise. */
    accountChoices?: AccountChoice[]
  }
}

/** Pages only: not a form's POST, nor the static assets. */
const isPage = (request: FastifyRequest) =>
  request.method === 'GET' && !(request.routeOptions.url ?? '').startsWith('/portal/assets/')

export function accountSwitcherHook(app: FastifyInstance, portal: Pick<Portal, 'teams' | 'accounts'>): void {
  // After membership.ts's preValidation hook (registered before this), which set request.member.
  app.addHook('preValidation', async (request) => {
    const member = request.member
    if (!member || !isPage(request)) return
    const memberships = await portal.teams.membershipsOf(member.userId)
    if (memberships.length < 2) return
    const names = await portal.accounts.accountNames(memberships.map((m) => m.accountId))
    request.accountChoices = memberships
      .filter((m) => names.has(m.accountId))
      .map((m) => ({
        id: m.accountId,
        name: names.get(m.accountId)!,
        role: ROLE_NAMES[m.role],
        current: m.accountId === member.accountId,
      }))
  })
}
