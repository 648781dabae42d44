// The console's account page: who owns the account and its state, its members, its keys and their bans, its usage
// charts and its latest audit entries, with the buttons that open each action's confirmation step
// (account-actions.pages.ts). A control the operator's role may not use is not rendered (the POST refuses it too).
import type { Account, ApiKeyInfo } from '../../modules/accounts/accounts.repository.js'
import { endsAt, shownState } from '../../modules/accounts/key-display.js'
import type { PortalUserSummary } from '../../modules/integrators/verification.js'
import type { AuditEvent } from '../../modules/audit/audit-event.js'
import type { TwoFactorStatus } from '../../modules/two-factor/two-factor.types.js'
import type { UsagePoint } from '../../modules/usage/usage.service.js'
import { html, type Html } from '../kit/html.js'
import { scopesCell } from '../kit/scopes-cell.js'
import { usageCharts } from '../kit/usage-charts.js'
import { when, whenCell } from '../kit/when.js'
import { auditTable } from './account-audit.pages.js'
import { isAdmin, notice, type ConsolePageContext } from './layout.js'
import { FOUND_BY, type FoundBy } from './search.repository.js'

interface AccountView {
  account: Account
  /** Its portal user (none for an account made by the CLI). */
  user: PortalUserSummary | undefined
  /** Its portal user's second factors (with the user: none without one). */
  twoFactor: TwoFactorStatus | undefined
  keys: ApiKeyInfo[]
  /** key id -> the end of its current ban (ISO). */
  bans: Map<string, string>
  windows: Array<{ name: 'minute' | 'day'; limit: number; used: number }>
  perMinute: UsagePoint[]
  perDay: UsagePoint[]
  events: AuditEvent[]
  /** Whether this console can mail the owner (MAIL_URL set, the portal on: the links lead there). */
  canMail: boolean
  /** Why the search that opened this page matched (its one match). */
  found?: FoundBy[]
  /** What was just done (a confirmation notice), from DONE_MESSAGES. */
  done?: string
  /** The "Members" section: its members and open invitations (account-members.pages.ts). */
  members: Html
  /** The "Webhook endpoints" section (account-webhooks.pages.ts); none with WEBHOOKS=off. */
  webhooks?: Html
}

/** The notices after an action (the redirect names one by its key, so no text of the request is echoed). */
export const DONE_MESSAGES = {
  plan: 'The plan was changed. The next request of any of its keys gets the new limits.',
  suspended: 'The account was suspended: every request with its keys is refused with 403 account_suspended.',
  reactivated: 'The account was reactivated: its keys work again as they were.',
  revoked: 'The key was revoked: it is refused from its next request on.',
  'ban-lifted': 'The ban was lifted: the key is admitted again (within its quota).',
  'not-banned': 'The key was not banned (its ban may have ended meanwhile): nothing changed.',
  verification: "A fresh verification link was mailed to the account's address (earlier links no longer work).",
  'verification-recent': 'A link was mailed less than a minute ago and is still the link: nothing was sent.',
  invited: "The account was made. A link to choose a password (valid 7 days) was mailed to the owner's address.",
  'invitation-again': 'A fresh link to choose a password was mailed to the owner (earlier links no longer work).',
  'second-factors-reset':
    "The user's second factors were reset: they log in with their password alone until they set up two-factor " +
    'log-in again. They were mailed that an operator did it.',
  deleted: 'The account was deleted: its keys are refused and its portal user is gone.',
  unchanged: 'Nothing changed: the account was already so.',
  'webhook-disabled': 'The webhook endpoint was disabled: it is sent no more events.',
  'webhook-unchanged': 'Nothing changed: the webhook endpoint was not enabled.',
} as const
export type Done = keyof typeof DONE_MESSAGES
export const isDone = (value: string | undefined): value is Done =>
  value !== undefined && Object.hasOwn(DONE_MESSAGES, value)

const number = (n: number) => n.toLocaleString('en-US')
export const keyLabel = (key: ApiKeyInfo) => key.name ?? 'Unnamed key'

/** The plan and the quota in force: `pro: 300 per minute, 10,000 per day`. */
export const planText = (account: Account) =>
  `${account.plan}: ${number(account.quota.perMinute)} per minute, ${number(account.quota.perDay)} per day`

export function stateText(account: Account): Html {
  if (account.deletedAt !== null) return html`<strong>Deleted</strong> on ${when(account.deletedAt)}`
  if (account.suspendedAt !== null)
    return html`<strong>Suspended</strong> since ${when(account.suspendedAt)}. Reason: \
${account.suspensionReason ?? '—'}`
  return html`Active`
}

function emailText(user: PortalUserSummary | undefined, account: Account): Html {
  if (!user)
    return html`<span class="muted">${
      account.deletedAt === null
        ? 'None: the account was made with the CLI (no portal user)'
        : 'None: removed with the account'
    }</span>`
  const verified = user.invited
    ? html`<strong>no password chosen yet</strong>`
    : user.verifiedAt === null
      ? html`<strong>not verified</strong>`
      : html`verified on ${when(user.verifiedAt)}`
  return html`${user.email} (${verified})`
}

/** The portal user's second factors: how many of each, never a secret (nor a passkey's key or a code). */
function twoFactorText(status: TwoFactorStatus): Html {
  const passkeys = status.passkeys.length
  return html`${status.enabled ? html`<strong>On</strong>` : 'Off'} (authenticator app: ${status.app ? 'yes' : 'no'}; \
passkeys: ${passkeys}; recovery codes left: ${status.recoveryCodesLeft})`
}

/** A button that opens an action's confirmation page (a GET: nothing changes until it is confirmed there). */
export const actionButton = (
  href: string,
  label: string,
  options: { describedBy?: string; danger?: boolean; small?: boolean } = {},
): Html =>
  html`<form method="get" action="${href}"><button type="submit" \
class="${options.small ? 'small ' : ''}${options.danger ? 'danger' : 'secondary'}"${
    options.describedBy
      ? html` \
aria-describedby="${options.describedBy}"`
      : ''
  }>${label}</button></form>`

function accountActions(ctx: ConsolePageContext, view: AccountView): Html {
  const { account, user } = view
  if (account.deletedAt !== null) return html`<p class="muted">A deleted account has no actions left.</p>`
  const base = `/console/accounts/${account.id}`
  const admin = isAdmin(ctx)
  const buttons = [
    admin ? actionButton(`${base}/plan`, 'Change plan') : '',
    admin
      ? account.suspendedAt === null
        ? actionButton(`${base}/suspend`, 'Suspend')
        : actionButton(`${base}/reactivate`, 'Reactivate')
      : '',
    view.canMail && user?.invited ? actionButton(`${base}/invitation`, 'Send the password link again') : '',
    view.canMail && user && !user.invited && user.verifiedAt === null
      ? actionButton(`${base}/verification`, 'Resend verification')
      : '',
    admin && view.canMail && view.twoFactor?.enabled
      ? actionButton(`${base}/second-factors`, 'Reset second factors', { danger: true })
      : '',
    admin ? actionButton(`${base}/delete`, 'Delete account', { danger: true }) : '',
  ].filter((b) => b !== '')
  if (buttons.length === 0) return html``
  return html`<div class="row-actions">${buttons}</div>`
}

function keyActions(ctx: ConsolePageContext, view: AccountView, key: ApiKeyInfo): Html {
  if (view.account.deletedAt !== null) return html``
  const base = `/console/accounts/${view.account.id}/keys/${key.id}`
  const describedBy = `key-${key.id}`
  const revoke =
    isAdmin(ctx) && key.state === 'active' ? actionButton(`${base}/revoke`, 'Revoke', { describedBy, small: true }) : ''
  const unban = view.bans.has(key.id) ? actionButton(`${base}/unban`, 'Lift ban', { describedBy, small: true }) : ''
  return html`${revoke}${unban}`
}

function keysTable(ctx: ConsolePageContext, view: AccountView): Html {
  if (view.keys.length === 0) return html`<p class="muted">No keys.</p>`
  const rows = view.keys.map((k) => {
    const until = view.bans.get(k.id)
    const state = shownState(k, { suspended: view.account.suspendedAt !== null })
    return html`<tr><th scope="row" id="key-${k.id}" class="key-name">${keyLabel(k)}</th><td data-label="Key">\
<code>${k.prefix}…</code></td>
<td class="when" data-label="Created">${whenCell(k.createdAt, '—')}</td><td class="when" data-label="Last \
used">${whenCell(k.lastUsedAt, 'never')}</td>
<td class="when" data-label="Expires">${whenCell(endsAt(k), 'never')}</td>${scopesCell(k)}<td data-label="State"><span \
class="state-${state}">${state}</span>${until ? html`, <strong>banned</strong> until ${when(until)}` : ''}</td>
<td class="actions">${keyActions(ctx, view, k)}</td></tr>`
  })
  return html`<table class="keys"><caption class="muted">Keys are shown by their first characters only.</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th>\
<th scope="col">Expires</th><th scope="col">Permissions</th><th scope="col">State</th><th scope="col">Actions</th></tr>\
</thead>
<tbody>${rows}</tbody></table>`
}

function bansList(view: AccountView): Html {
  const banned = view.keys.filter((k) => view.bans.has(k.id))
  if (banned.length === 0) return html`<p>No key is banned now.</p>`
  return html`<ul>${banned.map(
    (k) => html`<li>${keyLabel(k)} (<code>${k.prefix}…</code>): banned \
until ${when(view.bans.get(k.id)!)} for sending too many refused requests.</li>`,
  )}</ul>`
}

export function accountPage(ctx: ConsolePageContext, view: AccountView): Html {
  const { account } = view
  const counts = view.windows.map(
    (w) =>
      html`<tr><th scope="row">${w.name === 'minute' ? 'This minute' : 'Today (UTC)'}</th><td>${number(w.used)} \
of ${number(w.limit)} requests</td></tr>`,
  )
  const found = view.found?.length
    ? notice('info', `The only account your search matched, by ${view.found.map((k) => FOUND_BY[k]).join(' and ')}.`)
    : ''
  return html`${view.done ? notice('success', DONE_MESSAGES[view.done as Done]) : ''}${found}
<h2 id="summary">Account</h2>
<table class="facts" aria-labelledby="summary"><tbody>
<tr><th scope="row">Account id</th><td><code>${account.id}</code></td></tr>
<tr><th scope="row">Email</th><td>${emailText(view.user, account)}</td></tr>
${view.twoFactor ? html`<tr><th scope="row">Two-factor log-in</th><td>${twoFactorText(view.twoFactor)}</td></tr>` : ''}
<tr><th scope="row">Plan</th><td>${planText(account)}</td></tr>
${counts}
<tr><th scope="row">State</th><td>${stateText(account)}</td></tr>
<tr><th scope="row">Created</th><td>${when(account.createdAt)}</td></tr>
</tbody></table>
${accountActions(ctx, view)}
${view.members}
<h2>Keys</h2>${keysTable(ctx, view)}
<h2>Current bans</h2>${bansList(view)}
${view.webhooks ?? ''}
<h2>Usage</h2>${usageCharts({ perMinute: view.perMinute, perDay: view.perDay, subject: 'all keys' })}
<h2>Audit log</h2>${auditTable(view.events)}
<p><a href="/console/audit?account=${encodeURIComponent(account.id)}">Every audit entry of this account</a></p>`
}
