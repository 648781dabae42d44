// The audit page's content: the filter form (a GET form: the filters are in the URL, so a filtered view can be
// shared), `Export CSV` with the same filters, the entries newest first, and a `Next page` link.
import { AUDIT_ACTIONS, type AuditEvent } from '../../modules/audit/audit-event.js'
import { actorText, changeLines } from '../../modules/audit/audit-format.js'
import { html, type Html } from '../kit/html.js'
import { notice } from '../kit/layout.js'
import { auditQueryString, type AuditQueryValues } from './audit-filter.js'

interface AuditView {
  values: AuditQueryValues
  events: AuditEvent[]
  /** The `before` cursor of the next page, when there is one. */
  nextBefore?: string
  /** Whether this is a later page (a link back to the first is offered). */
  paged: boolean
  /** Why the filters cannot be used (shown above the form; no entries are listed). */
  error?: string
}

const accountLink = (id: string) => `/console/accounts/${encodeURIComponent(id)}`

function field(
  name: keyof AuditQueryValues,
  label: string,
  type: string,
  value: string | undefined,
  hint: string,
): Html {
  return html`<div><label for="f-${name}">${label}</label>
<input type="${type}" id="f-${name}" name="${name}" value="${value ?? ''}" aria-describedby="f-${name}-hint"><span \
class="hint" id="f-${name}-hint">${hint}</span></div>`
}

function filterForm(v: AuditQueryValues): Html {
  return html`<form method="get" action="/console/audit" class="inline-form audit-filter" aria-label="Filter the audit \
log">
${field('account', 'Account', 'text', v.account, 'account id')}
${field('actor', 'Actor', 'text', v.actor, 'email, or cli')}
<div><label for="f-action">Action</label>
<select id="f-action" name="action" aria-describedby="f-action-hint"><option value="">Any \
action</option>${AUDIT_ACTIONS.map(
    (a) => html`<option \
value="${a}"${a === v.action ? html` selected` : ''}>${a}</option>`,
  )}</select><span class="hint" id="f-action-hint">one kind of change</span></div>
${field('from', 'From', 'date', v.from, 'UTC day, included')}
${field('to', 'To', 'date', v.to, 'UTC day, included')}
<button type="submit">Filter</button> <a href="/console/audit" class="button secondary">Clear filters</a></form>`
}

/** `Export CSV`: a GET form (a button, as the issue names it) carrying the filters in force as hidden fields. */
function exportForm(v: AuditQueryValues): Html {
  const hidden = (Object.keys(v) as (keyof AuditQueryValues)[])
    .filter((k) => v[k])
    .map((k) => html`<input type="hidden" name="${k}" value="${v[k]}">`)
  return html`<form method="get" action="/console/audit.csv" class="export" \
aria-describedby="export-hint">${hidden}<button type="submit" class="secondary">Export CSV</button>
<span class="hint" id="export-hint">every entry matching the filters, as a CSV file</span></form>`
}

function target(e: AuditEvent): Html {
  if (e.target === null) return html`<span class="muted">none</span>`
  if (e.target.kind === 'account') return html`account <a href="${accountLink(e.target.id)}">${e.target.id}</a>`
  return html`${e.target.kind} ${e.target.id}`
}

function changes(e: AuditEvent): Html {
  const lines = changeLines(e.changes)
  if (lines.length === 0) return html`<span class="muted">none</span>`
  return html`<ul class="changes">${lines.map((line) => html`<li>${line}</li>`)}</ul>`
}

function row(e: AuditEvent): Html {
  return html`<tr><td class="when">${e.at.slice(0, 19).replace('T', ' ')} UTC</td><td>${actorText(e.actor)}</td>\
<td>${e.actor.address ?? html`<span class="muted">none</span>`}</td>
<th scope="row">${e.action}</th><td>${
    e.accountId === null
      ? html`<span class="muted">none</span>`
      : html`<a \
href="${accountLink(e.accountId)}">${e.accountId}</a>`
  }</td><td>${target(e)}</td><td>${changes(e)}</td></tr>`
}

export function auditContent(view: AuditView): Html {
  if (view.error !== undefined) return html`${notice('error', view.error)}${filterForm(view.values)}`
  const filtered = Object.keys(view.values).length > 0
  const empty = view.paged
    ? 'No older entries.'
    : filtered
      ? 'No entry matches these filters.'
      : 'The audit log is empty.'
  const table =
    view.events.length === 0
      ? html`<p class="muted">${empty}</p>`
      : html`<div class="table-scroll" role="region" aria-labelledby="audit-caption" tabindex="0"><table class="audit">\
<caption id="audit-caption">Audit log entries${filtered ? ' matching the filters' : ''}, newest first</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Actor</th><th scope="col">Address</th><th scope="col">Action</th>\
<th scope="col">Account</th><th scope="col">Target</th><th scope="col">Changes</th></tr></thead>
<tbody>${view.events.map(row)}</tbody></table></div>`
  const next =
    view.nextBefore === undefined
      ? ''
      : html`<a href="/console/audit${auditQueryString(view.values, { before: view.nextBefore })}" rel="next">Next \
page</a>`
  const first = view.paged ? html`<a href="/console/audit${auditQueryString(view.values)}">First page</a>` : ''
  return html`${filterForm(view.values)}
${exportForm(view.values)}
${table}
${next || first ? html`<nav aria-label="Pages" class="pager">${first} ${next}</nav>` : ''}`
}
