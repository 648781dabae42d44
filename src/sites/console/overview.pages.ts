// The overview's content (the page frame is consolePage's): tables with captions and header cells, so that a
// screen reader reads each figure with its row and column; accounts link to their pages.
import { PLANS } from '../../modules/accounts/plans.js'
import { html, type Html } from '../kit/html.js'
import type { Outcomes, Overview, TopAccount } from './overview.repository.js'

const number = (n: number) => n.toLocaleString('en-US')
const accountLink = (id: string) => `/console/accounts/${encodeURIComponent(id)}`

function plansTable(o: Overview): Html {
  // Every plan has a row, in the plans' order (an unknown stored plan, if any, after them).
  const known = PLANS.map((plan) => o.plans.find((p) => p.plan === plan) ?? { plan, accounts: 0, suspended: 0 })
  const rows = [...known, ...o.plans.filter((p) => !(PLANS as readonly string[]).includes(p.plan))]
  const total = (field: 'accounts' | 'suspended') => rows.reduce((n, p) => n + p[field], 0)
  return html`<table class="overview-plans"><caption>Accounts by plan (deleted accounts not counted)</caption>
<thead><tr><th scope="col">Plan</th><th scope="col">Accounts</th><th scope="col">Of which suspended</th></tr></thead>
<tbody>${rows.map(
    (p) => html`<tr><th scope="row">${p.plan}</th><td>${number(p.accounts)}</td>\
<td>${number(p.suspended)}</td></tr>`,
  )}</tbody>
<tfoot><tr><th scope="row">All plans</th><td>${number(total('accounts'))}</td><td>${number(total('suspended'))}</td>\
</tr></tfoot></table>`
}

function signupsTable(o: Overview): Html {
  const total = o.signups.reduce((n, d) => n + d.count, 0)
  return html`<table class="overview-signups"><caption>Sign-ups in the last ${o.signups.length} \
days: ${number(total)} ${total === 1 ? 'account' : 'accounts'} created</caption>
<thead><tr><th scope="col">Day (UTC)</th><th scope="col">Accounts created</th></tr></thead>
<tbody>${o.signups.map((d) => html`<tr><th scope="row">${d.day}</th><td>${number(d.count)}</td></tr>`)}</tbody></table>`
}

const OUTCOMES = [
  ['success', 'Success', '2xx, 3xx'],
  ['clientErrors', 'Client errors', '4xx'],
  ['refused', 'Refused by limit', '429'],
  ['serverErrors', 'Server errors', '5xx'],
] as const

function requestsTable(o: Overview): Html {
  const row = (label: Html, x: Outcomes) =>
    html`<tr><th scope="row">${label}</th>${OUTCOMES.map(([field]) => html`<td>${number(x[field])}</td>`)}<td>\
${number(x.total)}</td></tr>`
  return html`<div class="table-scroll" role="region" aria-labelledby="requests-caption" tabindex="0"><table \
class="overview-requests"><caption id="requests-caption">Requests across all accounts by outcome</caption>
<thead><tr><th scope="col">Period</th>${OUTCOMES.map(
    ([, name, detail]) => html`<th scope="col">${name} <span \
class="hint">${detail}</span></th>`,
  )}<th scope="col">All requests</th></tr></thead>
<tbody>${row(html`Last hour <span class="hint">since ${o.lastHour.from.slice(11, 16)} UTC</span>`, o.lastHour.outcomes)}
${row(html`Today <span class="hint">since 00:00 UTC</span>`, o.today.outcomes)}</tbody></table></div>
<p class="muted">Requests made with a valid key. The last hour is counted by minute, today by UTC day; both include \
this instance's latest requests, and other instances' within a few seconds.</p>`
}

function topTable(id: string, caption: string, empty: string, accounts: TopAccount[]): Html {
  if (accounts.length === 0) return html`<h3>${caption}</h3><p class="muted">${empty}</p>`
  return html`<div class="table-scroll" role="region" aria-labelledby="${id}" tabindex="0"><table class="overview-top">\
<caption id="${id}">${caption}</caption>
<thead><tr><th scope="col">Account</th><th scope="col">Email</th><th scope="col">Requests today</th><th \
scope="col">Refused today (429)</th></tr></thead>
<tbody>${accounts.map(
    (a) =>
      html`<tr><th scope="row"><a href="${accountLink(a.accountId)}">${a.name}</a> <span \
class="hint">${a.accountId}</span></th><td>${a.email ?? html`<span class="muted">none</span>`}</td>\
<td>${number(a.requests)}</td><td>${number(a.refused)}</td></tr>`,
  )}</tbody></table></div>`
}

export function overviewContent(o: Overview): Html {
  return html`<h2>Accounts</h2>
${plansTable(o)}
${signupsTable(o)}
<h2>Requests</h2>
${requestsTable(o)}
<h2>Busiest accounts today (UTC)</h2>
${topTable('top-requests', 'The ten accounts with the most requests today', 'No requests today yet.', o.mostRequests)}
${topTable(
  'top-refused',
  'The ten accounts with the most refusals (429) today',
  'No request was refused by a limit today.',
  o.mostRefused,
)}`
}
