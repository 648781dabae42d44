// The account page's "Members" section (teams): each member's address, role, two-factor log-in (on or off, never a
// factor) and since when, oldest first, and the
// invitations still open (address, role, sent, expires). Read-only: the account's owners and admins manage members
// in the portal; the console offers no control here. An invitation's link is never shown (only its hash is kept).
import type { Account } from '../../modules/accounts/accounts.repository.js'
import type { Teams } from '../../modules/teams/teams.service.js'
import type { TwoFactor } from '../../modules/two-factor/two-factor.service.js'
import { html, type Html } from '../kit/html.js'
import { whenCell } from '../kit/when.js'

type Member = Awaited<ReturnType<Teams['members']>>[number]

/** Whether each member has two-factor log-in on (by user id). */
export async function twoFactorOf(
  c: { twoFactor: Pick<TwoFactor, 'status'> },
  members: Member[],
): Promise<Map<string, boolean>> {
  const entries = await Promise.all(
    members.map(async (m) => [m.userId, (await c.twoFactor.status(m.userId)).enabled] as const),
  )
  return new Map(entries)
}
type OpenInvitation = Awaited<ReturnType<Teams['pendingInvitations']>>[number]

const iso = (ms: number) => new Date(ms).toISOString()

function membersTable(account: Account, members: Member[], twoFactor: Map<string, boolean>): Html {
  if (members.length === 0)
    return html`<p class="muted">${
      account.deletedAt === null
        ? 'None: the account was made with the CLI (no portal user).'
        : 'None: removed with the account.'
    }</p>`
  const rows = members.map(
    (m) => html`<tr><th scope="row">${m.email || '—'}</th><td data-label="Role">${m.role}</td>\
<td data-label="Two-factor log-in">${twoFactor.get(m.userId) ? 'On' : 'Off'}</td>\
<td class="when" data-label="Member since">${whenCell(iso(m.createdAt), '—')}</td></tr>`,
  )
  return html`<table class="members cards"><caption class="muted">Oldest first. Owners and admins of the account \
manage its members in the portal.</caption>
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Two-factor log-in</th><th \
scope="col">Member since</th></tr></thead>
<tbody>${rows}</tbody></table>`
}

function invitationsTable(invitations: OpenInvitation[]): Html {
  if (invitations.length === 0) return html`<p class="muted">No open invitations.</p>`
  const rows = invitations.map(
    (i) => html`<tr><th scope="row">${i.email}</th><td data-label="Role">${i.role}</td>\
<td class="when" data-label="Sent">${whenCell(iso(i.createdAt), '—')}</td>\
<td class="when" data-label="Expires">${whenCell(iso(i.expiresAt), '—')}</td></tr>`,
  )
  return html`<table class="member-invitations cards"><caption class="muted">Open invitations: not yet accepted, \
revoked or expired.</caption>
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Sent</th><th \
scope="col">Expires</th></tr></thead>
<tbody>${rows}</tbody></table>`
}

export function membersSection(
  account: Account,
  members: Member[],
  invitations: OpenInvitation[],
  twoFactor: Map<string, boolean>,
): Html {
  return html`<h2 id="members">Members</h2>${membersTable(account, members, twoFactor)}
<h3>Invitations</h3>${invitationsTable(invitations)}`
}
