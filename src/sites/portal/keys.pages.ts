// The keys pages: the table of the account's keys, the create form, and the
// confirmation steps of Roll and Revoke (a page each, so they work without JavaScript). A member whose role may not
// change keys (a viewer) sees the table without Create key, Roll, Revoke or Narrow.
import type { ApiKeyInfo } from '../../modules/accounts/accounts.repository.js'
import { endsAt, shownState } from '../../modules/accounts/key-display.js'
import { html, type Html } from '../kit/html.js'
import { whenCell } from '../kit/when.js'
import { csrfField, notice } from './layout.js'
import { createButtons, narrowLink, permissionsGroup } from './key-scopes.pages.js'
import { scopesCell } from '../kit/scopes-cell.js'

export const GRACE_CHOICES = [
  { value: '0', label: 'None: the old key stops now' },
  { value: '3600', label: '1 hour' },
  { value: '86400', label: '24 hours' },
  { value: '604800', label: '7 days' },
] as const

export const EXPIRY_CHOICES = [
  { value: '', label: 'Never' },
  { value: '7', label: 'In 7 days' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: '365', label: 'In 1 year' },
] as const

// How instants read (the console's pages share them).
export { when } from '../kit/when.js'

export const keyName = (key: ApiKeyInfo) => key.name ?? 'Unnamed key'

/** The state as people read it: a rolled key in its grace period is `rolled` (the Expires cell says until when). */
function stateCell(key: ApiKeyInfo, suspended: boolean): Html {
  const state = shownState(key, { suspended })
  return html`<span class="state-${state}">${state}</span>`
}

function actions(key: ApiKeyInfo, suspended: boolean): Html {
  if (key.state !== 'active') return html``
  // The buttons only open the confirmation step; nothing changes until it is confirmed there.
  const button = (action: 'roll' | 'revoke', label: string) =>
    html`<form method="get" action="/portal/keys/${key.id}/${action}"><button type="submit" class="small secondary" \
aria-describedby="name-${key.id}">${label}</button></form>`
  // A suspended account gets no new key, so no Roll (a roll makes one); revoking stays its owner's choice.
  return html`${key.replacedBy || suspended ? '' : button('roll', 'Roll')}${button('revoke', 'Revoke')}`
}

// `data-label` names each cell where a narrow screen shows one card per key instead of columns (assets.ts).
// `manage`: the Narrow link and the Actions column (Roll, Revoke), for a role that may change keys.
function keysTable(keys: ApiKeyInfo[], suspended: boolean, manage: boolean): Html {
  if (keys.length === 0) return html`<p class="muted">No keys yet.</p>`
  const rows = keys.map(
    (k) => html`<tr><th scope="row" id="name-${k.id}" class="key-name">${keyName(k)}</th><td data-label="Key">\
<code>${k.prefix}…</code></td><td class="when" data-label="Created">${whenCell(k.createdAt, '—')}</td><td class="when" \
data-label="Last used">${whenCell(k.lastUsedAt, 'never')}</td>
<td class="when" data-label="Expires">${whenCell(endsAt(k), 'never')}</td>${scopesCell(k, manage ? narrowLink(k) : '')}\
<td data-label="State">${stateCell(k, suspended)}</td>${
      manage ? html`<td class="actions">${actions(k, suspended)}</td>` : ''
    }</tr>`,
  )
  return html`<table class="keys"><caption class="muted">Keys are shown by their first characters only; a secret is \
shown once, when it is made.</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th>\
<th scope="col">Expires</th><th scope="col">Permissions</th><th scope="col">State</th>${
    manage ? html`<th scope="col">Actions</th>` : ''
  }</tr></thead>
<tbody>${rows}</tbody></table>`
}

/** What a member who may not change keys reads where the Create key button would be. */
const READ_ONLY_KEYS =
  'Your role in this account lets you see its keys. A developer, admin or owner creates, rolls, narrows and ' +
  'revokes them.'

/** Why no key can be created now, and how to make room (the portal's words for KeyLimitError). */
export const keyLimitMessage = (active: number, max: number) =>
  `You have ${active} working keys (active, or rolled and still in their grace period); an account may have ` +
  `at most ${max}. To create another, revoke a key you no longer use: press Revoke in its row on your keys page, ` +
  `then confirm.`

/** What a suspended account's owner is told, wherever the portal refuses to make a key. */
export function suspendedMessage(reason: string | null): string {
  const why = reason ? ` The reason given: ${reason}` : ''
  return (
    `Your account is suspended: every API request with its keys is refused (403 account_suspended), and no key ` +
    `can be created or rolled until it is reactivated.${why} Contact the operator of this service to have it ` +
    `reactivated.`
  )
}

export function keysPage(input: {
  csrf: string
  keys: ApiKeyInfo[]
  verified: boolean
  sent: boolean
  maxKeys: number
  suspension?: { reason: string | null }
  /** The member's role may create, roll, narrow and revoke keys (developer and above). */
  manage: boolean
}): Html {
  const active = input.keys.filter((k) => k.state === 'active').length
  const verify = html`${notice(
    'info',
    input.sent
      ? 'We sent a verification link to your address (at most one a minute). Open it to verify your address.'
      : `Verify your email address${input.manage ? ' to create keys' : ''}: open the link we sent you.`,
  )}
<form method="post" action="/portal/verify/resend">${csrfField(input.csrf)}<button type="submit" \
class="secondary">Send the link again</button></form>`
  const create = input.suspension
    ? notice('error', suspendedMessage(input.suspension.reason))
    : !input.verified
      ? verify
      : input.manage
        ? html`${active >= input.maxKeys ? notice('info', keyLimitMessage(active, input.maxKeys)) : ''}<form \
method="get" action="/portal/keys/new"><button type="submit">Create key</button></form>`
        : html`<p class="muted">${READ_ONLY_KEYS}</p>`
  return html`${create}<h2>Your keys</h2>${keysTable(input.keys, input.suspension !== undefined, input.manage)}
<p class="muted">Call the API with <code>Authorization: Bearer &lt;key&gt;</code>. See <a href="/docs">the API \
reference</a>.</p>`
}

const select = (id: string, label: string, choices: readonly { value: string; label: string }[], selected = '') =>
  html`<div><label for="${id}">${label}</label><select id="${id}" name="${id}">${choices.map(
    (c) => html`<option \
value="${c.value}"${c.value === selected ? html` selected` : ''}>${c.label}</option>`,
  )}</select></div>`

export function newKeyForm(
  csrf: string,
  input: { name?: string; expires?: string; scopes?: readonly string[]; error?: string } = {},
): Html {
  return html`${notice('error', input.error)}
<form method="post" action="/portal/keys" class="stacked">${csrfField(csrf)}
<div><label for="name">Key name</label><span class="hint" id="name-hint">For you to recognise it, e.g. "production \
server".</span>
<input id="name" name="name" type="text" required maxlength="100" value="${input.name ?? ''}" \
aria-describedby="name-hint" autofocus></div>
${select('expires', 'Expires', EXPIRY_CHOICES, input.expires)}
${permissionsGroup(input.scopes)}
<div class="row-actions">${createButtons}<a href="/portal/keys">Cancel</a></div>
</form>`
}

export function rollConfirm(csrf: string, key: ApiKeyInfo): Html {
  return html`<p>Rolling <strong class="key-name">${keyName(key)}</strong> (<code>${key.prefix}…</code>) makes a new \
secret. Choose how long the old one keeps working, so you can switch over.</p>
<form method="post" action="/portal/keys/${key.id}/roll" class="stacked">${csrfField(csrf)}
${select('grace', 'Grace period', GRACE_CHOICES, '3600')}
<div class="row-actions"><button type="submit">Roll key</button><a href="/portal/keys">Cancel</a></div></form>`
}

export function revokeConfirm(csrf: string, key: ApiKeyInfo): Html {
  return html`<p>Revoke <strong class="key-name">${keyName(key)}</strong> (<code>${key.prefix}…</code>)? Every request \
with it is refused from the next one on. This cannot be undone.</p>
<form method="post" action="/portal/keys/${key.id}/revoke" class="row-actions">${csrfField(csrf)}<button type="submit" \
class="danger">Revoke key</button><a href="/portal/keys">Cancel</a></form>`
}
