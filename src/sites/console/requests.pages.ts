// /console/requests: the plan requests waiting for a decision (oldest first, a page at a time, with their total),
// then the recent decisions; and the confirmation page of Approve (with the quotas, for enterprise) and of Decline
// (with its reason). An owner whose address is not verified, and an account made less than NEW_ACCOUNT_DAYS ago,
// are marked in words (a flood comes from such accounts). Admin controls show for admins only; the server checks
// the role again on every one of them (requests.routes.ts).
import { PLAN_QUOTAS } from '../../modules/accounts/plans.js'
import type {
  PendingPage,
  PlanRequest,
  PlanRequestListing,
} from '../../modules/plan-requests/plan-requests.repository.js'
import { REASON_MAX } from '../../modules/plan-requests/plan-request-input.js'
import { html, type Html } from '../kit/html.js'
import { when, whenCell } from '../kit/when.js'
import { csrfField, notice } from './layout.js'

const number = (n: number) => n.toLocaleString('en-US')
/** An account younger than this is marked `New account`. */
const NEW_ACCOUNT_DAYS = 7
const DAY_MS = 86_400_000
const caution = (text: string) => html` <span class="tag caution">${text}</span>`
const accountHref = (id: string) => `/console/accounts/${encodeURIComponent(id)}`
const requestHref = (r: PlanRequest, action: 'approve' | 'decline') =>
  `/console/requests/${encodeURIComponent(r.id)}/${action}`

/** Text typed over several lines, shown with its line breaks. */
const lines = (text: string): Html[] => text.split('\n').map((line, i) => html`${i > 0 ? html`<br>` : ''}${line}`)

function currentPlanText(account: PlanRequestListing['account']): string {
  const plan = account.plan
  if (plan === 'free' || plan === 'pro' || plan === 'business')
    return `${plan} (${number(PLAN_QUOTAS[plan].perMinute)}/min, ${number(PLAN_QUOTAS[plan].perDay)}/day)`
  return `${plan} (${number(account.perMinute ?? 0)}/min, ${number(account.perDay ?? 0)}/day)`
}

function accountCell(r: PlanRequestListing, now: number): Html {
  const isNew = now - Date.parse(r.account.createdAt) < NEW_ACCOUNT_DAYS * DAY_MS
  return html`<th scope="row" id="req-${r.id}" class="account"><a \
href="${accountHref(r.accountId)}">${r.account.name}</a><br><code \
class="muted">${r.accountId}</code>${r.account.deleted ? html` <span class="muted">(deleted)</span>` : ''}\
${isNew ? caution('New account') : ''}</th>`
}

function emailCell(r: PlanRequestListing, none: Html | string): Html {
  const email = r.email === null ? none : html`${r.email}${r.verified ? '' : caution('Unverified')}`
  return html`<td data-label="Email">${email}</td>`
}

const noteCell = (r: PlanRequest) =>
  html`<td class="note" data-label="Note">${r.note === '' ? html`<span class="muted">—</span>` : lines(r.note)}</td>`

function actions(r: PlanRequestListing, admin: boolean): Html {
  if (!admin) return html``
  // The buttons open the confirmation step; nothing changes until it is confirmed there.
  const button = (action: 'approve' | 'decline', label: string) =>
    html`<form method="get" action="${requestHref(r, action)}"><button type="submit" \
class="small${action === 'decline' ? ' secondary' : ''}" aria-describedby="req-${r.id}">${label}</button></form>`
  return html`<td class="actions">${button('approve', 'Approve')}${button('decline', 'Decline')}</td>`
}

function pendingTable(page: PendingPage, paged: boolean, admin: boolean, now: number): Html {
  const first = paged ? html`<a href="/console/requests">First page</a>` : ''
  if (page.requests.length === 0)
    return html`<p class="muted">${paged ? html`No more requests are waiting. ${first}` : 'No request is waiting.'}</p>`
  const rows = page.requests.map(
    (r) => html`<tr>${accountCell(r, now)}${emailCell(r, html`<span class="muted">none (made by the CLI)</span>`)}<td \
data-label="Current plan">${currentPlanText(r.account)}</td>
<td data-label="Requested"><strong>${r.plan}</strong></td>${noteCell(r)}<td class="when" \
data-label="Sent">${whenCell(r.createdAt, '—')}</td>${actions(r, admin)}</tr>`,
  )
  const shown = `${number(page.before + 1)}–${number(page.before + page.requests.length)} of ${number(page.total)}`
  const last = page.requests.at(-1)!
  const next = page.more
    ? html`<a href="/console/requests?after=${encodeURIComponent(last.id)}" rel="next">Next page</a>`
    : ''
  return html`<table class="requests cards"><caption class="muted">Requests ${shown}, oldest \
first.${admin ? '' : ' Only an admin may approve or decline.'}</caption>
<thead><tr><th scope="col">Account</th><th scope="col">Email</th><th scope="col">Current plan</th><th \
scope="col">Requested</th><th scope="col">Note</th><th scope="col">Sent</th>${
    admin
      ? html`<th \
scope="col">Actions</th>`
      : ''
  }</tr></thead>
<tbody>${rows}</tbody></table>${
    first || next
      ? html`<nav aria-label="Pages of waiting requests" \
class="pager">${first} ${next}</nav>`
      : ''
  }`
}

function decisionCell(r: PlanRequestListing): Html {
  const by = html`by ${r.decidedBy ?? 'unknown'}, ${when(r.decidedAt)}`
  if (r.state === 'approved')
    return html`<td data-label="Decision"><span class="state-active">Approved</span> ${by}</td>`
  return html`<td data-label="Decision"><span \
class="state-revoked">Declined</span> ${by}.<br>Reason: ${lines(r.reason ?? '')}</td>`
}

function decidedTable(requests: PlanRequestListing[], now: number): Html {
  if (requests.length === 0) return html`<p class="muted">No decision yet.</p>`
  const rows = requests.map(
    (r) => html`<tr>${accountCell(r, now)}${emailCell(r, '—')}<td data-label="Current \
plan">${currentPlanText(r.account)}</td>
<td data-label="Requested">${r.plan}</td>${noteCell(r)}<td class="when" \
data-label="Sent">${whenCell(r.createdAt, '—')}</td>${decisionCell(r)}</tr>`,
  )
  return html`<table class="requests cards"><caption class="muted">Most recently decided first.</caption>
<thead><tr><th scope="col">Account</th><th scope="col">Email</th><th scope="col">Current plan</th><th \
scope="col">Requested</th><th scope="col">Note</th><th scope="col">Sent</th><th scope="col">Decision</th></tr></thead>
<tbody>${rows}</tbody></table>`
}

const DONE: Record<string, string> = {
  approved: 'Approved: the account is on its new plan from its next request, and its owner was mailed.',
  declined: 'Declined: its owner was mailed the reason.',
}

export function requestsPage(input: {
  pending: PendingPage
  paged: boolean
  decided: PlanRequestListing[]
  admin: boolean
  now: number
  done?: string
}): Html {
  return html`${notice('success', input.done === undefined ? undefined : DONE[input.done])}
<h2>Waiting for a decision</h2>${pendingTable(input.pending, input.paged, input.admin, input.now)}
<h2>Recent decisions</h2>${decidedTable(input.decided, input.now)}`
}

/** Which request this is about, at the top of each confirmation page. */
function about(r: PlanRequestListing): Html {
  return html`<p>Account <a href="${accountHref(r.accountId)}">${r.account.name}</a> \
(<code>${r.accountId}</code>)${r.email ? html`, owner ${r.email}` : ''}, now on ${currentPlanText(r.account)}, asks \
for the <strong>${r.plan}</strong> plan (sent ${when(r.createdAt)}).</p>
${
  r.note === ''
    ? html`<p class="muted">No note.</p>`
    : html`<p>Note:</p><blockquote \
class="note">${lines(r.note)}</blockquote>`
}`
}

function confirmForm(input: {
  csrf: string
  request: PlanRequest
  action: 'approve' | 'decline'
  fields?: Html
}): Html {
  const label = input.action === 'approve' ? 'Approve' : 'Decline'
  return html`<form method="post" action="${requestHref(input.request, input.action)}" \
class="stacked">${csrfField(input.csrf)}${input.fields ?? ''}
<div class="row-actions"><button \
type="submit"${input.action === 'decline' ? html` class="danger"` : ''}>${label}</button><a \
href="/console/requests">Cancel</a></div></form>`
}

interface ApproveValues {
  perMinute?: string
  perDay?: string
  error?: string
}

export function approvePage(csrf: string, request: PlanRequestListing, values: ApproveValues = {}): Html {
  const enterprise = request.plan === 'enterprise'
  const invalid = values.error ? html` aria-invalid="true"` : ''
  const quota = (name: 'per_minute' | 'per_day', label: string, value: string | undefined) =>
    html`<div><label for="${name}">${label}</label><span class="hint" id="${name}-hint">A whole number from 1.</span>
<input id="${name}" name="${name}" type="text" inputmode="numeric" required maxlength="16" value="${value ?? ''}" \
aria-describedby="${name}-hint"${invalid}></div>`
  const fields = enterprise
    ? html`${quota('per_minute', 'Requests per minute', values.perMinute)}\
${quota('per_day', 'Requests per day', values.perDay)}`
    : undefined
  const what = enterprise
    ? html`<p>The enterprise plan has the quotas agreed with the integrator: give them here.</p>`
    : html`<p>The account moves \
to ${request.plan}: ${number(PLAN_QUOTAS[request.plan as 'pro' | 'business'].perMinute)} requests per \
minute, ${number(PLAN_QUOTAS[request.plan as 'pro' | 'business'].perDay)} per day.</p>`
  return html`${notice('error', values.error)}${about(request)}${what}
<p>The new limits apply from the next request of any of its keys. The owner is mailed the decision; it is recorded in \
the audit log with your email.</p>
${confirmForm({ csrf, request, action: 'approve', fields })}`
}

export function declinePage(
  csrf: string,
  request: PlanRequestListing,
  values: { reason?: string; error?: string } = {},
): Html {
  const fields = html`<div><label for="reason">Reason</label><span class="hint" id="reason-hint">Mailed to the \
account's owner and kept in the audit log. At most ${REASON_MAX} characters.</span>
<textarea id="reason" name="reason" rows="4" required maxlength="${REASON_MAX}" \
aria-describedby="reason-hint"${values.error ? html` aria-invalid="true"` : ''}>${values.reason ?? ''}</textarea></div>`
  return html`${notice('error', values.error)}${about(request)}
<p>The account stays on its plan; its owner may ask again.</p>
${confirmForm({ csrf, request, action: 'decline', fields })}`
}
