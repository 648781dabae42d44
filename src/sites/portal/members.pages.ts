// /portal/members: the account's members and open invitations, and the forms of those who may change them (an admin
// for members below owner, an owner for everyone): invite, change a role, remove, revoke or resend an invitation;
// leaving, for every member; requiring two-factor log-in, for owners.
import type { Invitation } from '../../modules/teams/invitations.repository.js'
import type { Membership } from '../../modules/teams/members.repository.js'
import { type MemberRole, rolesGrantableBy } from '../../modules/teams/roles.js'
import { html, type Html } from '../kit/html.js'
import { when } from '../kit/when.js'
import { csrfField, notice } from './layout.js'
import { ROLE_NAMES } from './membership.js'

export interface MembersInput {
  csrf: string
  me: Membership
  members: Array<Membership & { email: string }>
  invitations: Invitation[]
  requireTwoFactor: boolean
  done?: string
  error?: string
  values?: { email?: string; role?: string }
}

const DONE: Record<string, string> = {
  invited: 'The invitation was mailed. It works once, for 7 days.',
  resent: 'A fresh link was mailed; the earlier one no longer works.',
  revoked: 'The invitation was revoked: its link no longer works.',
  role: 'The role was changed. It applies from their next request.',
  removed: 'The member was removed and their sessions in this account ended.',
  'two-factor': 'The two-factor requirement was changed.',
}

const at = (ms: number) => when(new Date(ms).toISOString())

const roleSelect = (id: string, roles: MemberRole[], selected: MemberRole, label: string) =>
  html`<label for="${id}" class="visually-hidden">${label}</label><select id="${id}" name="role">${roles.map(
    (r) => html`<option value="${r}"${r === selected ? html` selected` : ''}>${ROLE_NAMES[r]}</option>`,
  )}</select>`

function memberRow(input: MembersInput, m: Membership & { email: string }, i: number): Html {
  const grantable = rolesGrantableBy(input.me.role)
  const manageable = m.userId !== input.me.userId && grantable.includes(m.role)
  const actions = manageable
    ? html`<form method="post" action="/portal/members/${m.userId}/role">${csrfField(input.csrf)}${roleSelect(
        `role-${i}`,
        grantable,
        m.role,
        `Role of ${m.email}`,
      )} <button type="submit" class="secondary small">Change role</button></form>
<form method="post" action="/portal/members/${m.userId}/remove">${csrfField(input.csrf)}<button type="submit" \
class="secondary small" aria-label="Remove ${m.email}">Remove</button></form>`
    : m.userId === input.me.userId
      ? html`<span class="muted">You</span>`
      : ''
  return html`<tr><th scope="row" data-label="Member">${m.email}</th><td data-label="Role">${ROLE_NAMES[m.role]}</td>
<td data-label="Since">${m.createdAt === 0 ? 'the start' : at(m.createdAt)}</td>
<td class="actions">${actions}</td></tr>`
}

function invitationRows(input: MembersInput): Html {
  if (input.invitations.length === 0) return html`<p>No invitation is waiting.</p>`
  const grantable = rolesGrantableBy(input.me.role)
  const rows = input.invitations.map((inv) => {
    const actions = grantable.includes(inv.role)
      ? html`<form method="post" action="/portal/members/invitations/${inv.id}/resend">${csrfField(input.csrf)}<button \
type="submit" class="secondary small" aria-label="Resend the invitation to ${inv.email}">Resend</button></form>
<form method="post" action="/portal/members/invitations/${inv.id}/revoke">${csrfField(input.csrf)}<button \
type="submit" class="secondary small" aria-label="Revoke the invitation to ${inv.email}">Revoke</button></form>`
      : ''
    return html`<tr><th scope="row" data-label="Address">${inv.email}</th>
<td data-label="Role">${ROLE_NAMES[inv.role]}</td>
<td data-label="Expires">${at(inv.expiresAt)}</td><td class="actions">${actions}</td></tr>`
  })
  return html`<table class="cards"><thead><tr><th scope="col">Address</th><th scope="col">Role</th><th \
scope="col">Expires</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${rows}</tbody></table>`
}

export function membersPage(input: MembersInput): Html {
  const grantable = rolesGrantableBy(input.me.role)
  const invite =
    grantable.length > 0
      ? html`<h2 id="invite-heading">Invite a member</h2><form method="post" action="/portal/members/invite" \
class="stacked" aria-labelledby="invite-heading">${csrfField(input.csrf)}
<div><label for="invite-email">Email</label><input id="invite-email" name="email" type="email" required \
maxlength="254" value="${input.values?.email ?? ''}"></div>
<div><label for="invite-role">Role</label><select id="invite-role" name="role">${grantable.map((r) => {
          const selected = r === (input.values?.role ?? 'developer') ? html` selected` : ''
          return html`<option value="${r}"${selected}>${ROLE_NAMES[r]}</option>`
        })}</select></div>
<div><button type="submit">Send invitation</button></div></form>`
      : ''
  const twoFactor =
    input.me.role === 'owner'
      ? html`<h2>Two-factor log-in</h2><form method="post" action="/portal/members/two-factor">${csrfField(input.csrf)}\
<input type="hidden" name="required" value="${input.requireTwoFactor ? 'no' : 'yes'}"><p>${
          input.requireTwoFactor
            ? 'Required: a member without a second factor must set one up before doing anything else.'
            : 'Not required.'
        }</p><button type="submit" class="secondary">${
          input.requireTwoFactor ? 'Stop requiring it' : 'Require it for every member'
        }</button></form>`
      : html`<p>Two-factor log-in is ${input.requireTwoFactor ? '' : 'not '}required in this account.</p>`
  return html`${notice('success', input.done ? DONE[input.done] : undefined)}${notice('error', input.error)}
<table class="cards"><caption class="muted">Everyone who can use this account. Keys and webhook endpoints belong to \
the account: they stay when a member leaves.</caption><thead><tr><th scope="col">Member</th><th \
scope="col">Role</th><th scope="col">Since</th><th scope="col"><span \
class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${input.members.map((m, i) => memberRow(input, m, i))}</tbody></table>
<h2>Invitations</h2>${invitationRows(input)}
${invite}${twoFactor}
<h2>Leave</h2><form method="post" action="/portal/members/leave">${csrfField(input.csrf)}<p>You lose access to this \
account at once; the last owner cannot leave.</p>
<button type="submit" class="danger">Leave this account</button></form>`
}
