// An account's latest audit entries on its console page (the audit page, audit.pages.ts, has the filters, paging
// and CSV). Words for actors and changes come from audit-format.ts, as on the audit page.
import type { AuditEvent } from '../../modules/audit/audit-event.js'
import { actorText, changeLines } from '../../modules/audit/audit-format.js'
import { html, type Html } from '../kit/html.js'

const none = html`<span class="muted">none</span>`

function changes(e: AuditEvent): Html {
  const lines = changeLines(e.changes)
  return lines.length === 0 ? none : html`<ul class="changes">${lines.map((line) => html`<li>${line}</li>`)}</ul>`
}

export function auditTable(events: AuditEvent[]): Html {
  if (events.length === 0) return html`<p class="muted">No audit entries for this account.</p>`
  const rows = events.map(
    (e) => html`<tr><td class="when">${e.at.slice(0, 19).replace('T', ' ')} UTC</td><td>${actorText(e.actor)}</td>\
<td>${e.actor.address ?? none}</td>
<th scope="row">${e.action}</th><td>${e.target === null ? none : `${e.target.kind} ${e.target.id}`}</td>\
<td>${changes(e)}</td></tr>`,
  )
  // Wide: it scrolls sideways in its own box (focusable, so the keyboard can scroll it), never the page.
  return html`<div class="table-scroll" role="region" aria-labelledby="account-audit-caption" tabindex="0"><table \
class="audit"><caption id="account-audit-caption">The account's latest audit entries, newest first</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Actor</th><th scope="col">Address</th><th scope="col">Action</th>\
<th scope="col">Target</th><th scope="col">Changes</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
}
