// Teams in the portal's tests (issue 38): a signed-up user made a member of another's account through the teams
// service (an invitation accepted, as the mailed link does), and a browser's session switched to that account.
import assert from 'node:assert/strict'
import { emailKeyOf } from '../../src/kernel/email-address.js'
import type { MemberRole } from '../../src/modules/teams/roles.js'
import { testActor } from './actors.js'
import type { Harness } from './harness.js'
import type { Client } from './portal.js'
import { routesWith } from './routes.js'

/** The user's id and their own account (the one they signed up with). */
export async function userOf(h: Harness, email: string): Promise<{ id: string; accountId: string }> {
  const user = await h.services.portal!.repo.findUserByEmail(email)
  assert.ok(user, `no portal user ${email}`)
  return { id: user.id, accountId: user.account_id }
}

/** Invites `email` to the owner's account with `role` (as the owner); the invitation is left open. */
export async function invited(h: Harness, ownerEmail: string, email: string, role: MemberRole) {
  const owner = await userOf(h, ownerEmail)
  const by = await h.services.teams.membership(owner.id, owner.accountId)
  assert.ok(by, `${ownerEmail} is a member of their account`)
  const outcome = await h.services.teams.invite({
    by,
    email,
    emailKey: emailKeyOf(email),
    role,
    memberEmailKeys: [],
    actor: testActor,
  })
  assert.equal(outcome.outcome, 'invited')
  if (outcome.outcome !== 'invited') throw new Error('not invited')
  return { accountId: owner.accountId, invitation: outcome.invitation, token: outcome.token }
}

/** Makes the signed-up user `memberEmail` a member of `ownerEmail`'s account with `role`; returns that account. */
export async function joined(h: Harness, ownerEmail: string, memberEmail: string, role: MemberRole): Promise<string> {
  const { accountId, token } = await invited(h, ownerEmail, memberEmail, role)
  const member = await userOf(h, memberEmail)
  const result = await h.services.teams.accept(
    token,
    { id: member.id, emailKey: emailKeyOf(memberEmail) },
    () => testActor,
  )
  assert.deepEqual(result, { outcome: 'joined', accountId })
  return accountId
}

/**
 * Makes the client's session work in `accountId`: through the switcher's form (POST /portal/members/switch) where
 * the portal has it, else by setting the session's account as that route does.
 */
export async function switchTo(h: Harness, c: Client, accountId: string): Promise<void> {
  if (routesWith(h.app, 'POST', '/portal/members/switch').length > 0) {
    await c.get('/portal/keys')
    const switched = await c.post('/portal/members/switch', { account: accountId })
    assert.equal(switched.statusCode, 303, switched.body)
  } else {
    const sessionId = c.jar.get('portal_session')
    assert.ok(sessionId, 'the client is signed in')
    await h.services.portal!.repo.setSessionAccount(sessionId, accountId)
  }
}

/**
 * A form each portal action takes (by its route), so that a refusal can only be about who sent it or the id it
 * names, never about the form.
 */
export function formFor(route: string, password = ''): Record<string, string> {
  if (route === '/portal/keys') return { name: 'refused key', expires: '' }
  if (route === '/portal/webhooks' || route === '/portal/webhooks/:endpointId')
    return { url: 'http://127.0.0.1:9/refused', description: 'refused', events: 'all' }
  if (route === '/portal/plan-requests') return { plan: 'pro', note: '' }
  if (route === '/portal/account/delete') return { password }
  if (route.endsWith('/roll') || route.endsWith('/rotate')) return { grace: '0' }
  if (route.endsWith('/restrict')) return { scopes: 'pets:read' }
  if (route.endsWith('/recover')) return { since: '604800' }
  if (route.endsWith('/role')) return { role: 'viewer' }
  return {}
}
