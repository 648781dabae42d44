// /console/operators (admins only): the operators with their role and state, a form to create one (its single-use
// setup link is shown once, on the answer to the form), Change role on each row and Disable through its own
// confirmation page. The server checks the role and the self / last-admin rules again (operators.routes.ts).
import { OPERATOR_ROLES, type Operator } from '../../modules/operators/operator.js'
import { html, type Html } from '../kit/html.js'
import { when, whenCell } from '../kit/when.js'
import { csrfField, notice } from './layout.js'

const operatorHref = (o: Operator) => `/console/operators/${encodeURIComponent(o.id)}`

const stateOf = (o: Operator): Html =>
  o.disabledAt !== null
    ? html`<span class="state-revoked">disabled</span> ${when(o.disabledAt)}`
    : o.setUp
      ? html`<span class="state-active">active</span>`
      : html`<span class="state-expired">setup pending</span>`

const roleOptions = (selected: string | undefined) =>
  OPERATOR_ROLES.map((r) => html`<option value="${r}"${r === selected ? html` selected` : ''}>${r}</option>`)

function actions(o: Operator, csrf: string, self: boolean): Html {
  if (o.disabledAt !== null) return html`<td class="actions" data-label="Actions"><span class="muted">—</span></td>`
  const role = html`<form method="post" action="${operatorHref(o)}/role" class="inline-form">${csrfField(csrf)}
<select name="role" aria-label="Role of ${o.email}">${roleOptions(o.role)}</select><button type="submit" class="small" \
aria-describedby="op-${o.id}">Change role</button></form>`
  // The confirmation step; an admin cannot disable itself (the server refuses it too).
  const disable = self
    ? html``
    : html`<form method="get" action="${operatorHref(o)}/disable"><button type="submit" class="small danger" \
aria-describedby="op-${o.id}">Disable</button></form>`
  return html`<td class="actions" data-label="Actions">${role}${disable}</td>`
}

function operatorsTable(operators: Operator[], csrf: string, me: Operator): Html {
  const rows = operators.map(
    (o) => html`<tr><th scope="row" \
id="op-${o.id}">${o.email}${o.id === me.id ? html` <span class="tag">you</span>` : ''}<br><code \
class="muted">${o.id}</code></th>
<td data-label="Role">${o.role}</td><td data-label="State">${stateOf(o)}</td><td class="when" \
data-label="Created">${whenCell(o.createdAt, '—')}</td>${actions(o, csrf, o.id === me.id)}</tr>`,
  )
  return html`<table class="cards"><caption class="muted">Oldest first. Every change is recorded in the audit log with \
your email.</caption>
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">State</th><th scope="col">Created</th>\
<th scope="col">Actions</th></tr></thead>
<tbody>${rows}</tbody></table>`
}

export interface CreateValues {
  email?: string
  role?: string
  error?: string
}

function createForm(csrf: string, values: CreateValues): Html {
  const invalid = values.error ? html` aria-invalid="true" aria-describedby="create-error"` : ''
  return html`<form method="post" action="/console/operators" class="stacked">${csrfField(csrf)}
${values.error ? html`<div class="notice notice-error" role="alert" id="create-error">${values.error}</div>` : ''}
<div><label for="email">Email</label><input id="email" name="email" type="email" required maxlength="320" \
autocomplete="off" value="${values.email ?? ''}"${invalid}></div>
<div><label for="role">Role</label><span class="hint" id="role-hint">support reads everything, resends verification \
mails and lifts bans; admin may also change accounts, keys, plans and operators.</span>
<select id="role" name="role" aria-describedby="role-hint">${roleOptions(values.role ?? 'support')}</select></div>
<div class="row-actions"><button type="submit">Create operator</button></div></form>`
}

/** The setup link of the operator just created: shown on this answer only (it is stored as a hash). */
function createdNotice(created: { operator: Operator; link: string; expiresAt: string }): Html {
  return html`<div class="notice notice-success" role="status"><p>Created ${created.operator.role} \
<strong>${created.operator.email}</strong>. Their single-use setup link, valid until ${when(created.expiresAt)}:</p>
<p><code class="secret setup-link">${created.link}</code></p>
<p>It is shown only this once. Hand it over by a safe channel (in person, or a messenger you both trust), not in a \
shared channel or ticket: whoever opens it first becomes this operator.</p></div>`
}

const DONE: Record<string, string> = {
  role: "The role was changed; it applies from the operator's next request.",
  disabled: 'The operator was disabled: their sessions ended and they can no longer log in.',
  unchanged: 'Nothing to change.',
}

export interface OperatorsView {
  operators: Operator[]
  me: Operator
  csrf: string
  done?: string
  created?: { operator: Operator; link: string; expiresAt: string }
  form?: CreateValues
  error?: string
}

export function operatorsPage(view: OperatorsView): Html {
  const done = view.done === undefined ? undefined : DONE[view.done]
  return html`${notice('success', done)}${notice('error', view.error)}${view.created ? createdNotice(view.created) : ''}
${operatorsTable(view.operators, view.csrf, view.me)}
<h2>Create an operator</h2><p>The new operator gets a single-use setup link (valid 24 hours) to set a password and an \
authenticator.</p>
${createForm(view.csrf, view.form ?? {})}`
}

export function disablePage(csrf: string, o: Operator): Html {
  return html`<p>Operator <strong>${o.email}</strong> (<code>${o.id}</code>), ${o.role}, ${stateOf(o)}.</p>
<p>Disabling ends every session of theirs now, on every instance, and they can no longer log in\
${o.setUp ? '' : ' or use their setup link'}. This cannot be undone: their email cannot be given to a new operator \
either.</p>
<form method="post" action="${operatorHref(o)}/disable" class="stacked">${csrfField(csrf)}
<div class="row-actions"><button type="submit" class="danger">Disable</button><a href="/console/operators">Cancel</a>\
</div></form>`
}
