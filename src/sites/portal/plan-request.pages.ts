// The usage page's "A higher plan" block: the requests waiting for an operator (at most three), or the latest
// decision, and the form that asks for a higher plan (the plans above the current one not already asked for, and a
// note); for an address not yet verified, how to verify it instead. None on enterprise, the highest. Only an admin
// or owner asks: other members see the requests and decisions, and who can ask.
import { PLAN_QUOTAS, type Plan } from '../../modules/accounts/plans.js'
import type { PlanRequest } from '../../modules/plan-requests/plan-requests.repository.js'
import { higherPlans, NOTE_MAX, PENDING_PER_ACCOUNT } from '../../modules/plan-requests/plan-request-input.js'
import { html, type Html } from '../kit/html.js'
import { when } from './keys.pages.js'
import { csrfField, notice } from './layout.js'

const number = (n: number) => n.toLocaleString('en-US')

const planChoice = (plan: Plan) =>
  plan === 'enterprise'
    ? 'enterprise (quotas agreed with you)'
    : `${plan} (${number(PLAN_QUOTAS[plan].perMinute)} per minute, ${number(PLAN_QUOTAS[plan].perDay)} per day)`

export interface PlanRequestBlock {
  csrf: string
  currentPlan: string
  /** Whether the owner's address is verified: only a verified one may ask (else the block says how to verify). */
  verified: boolean
  /** The account's requests waiting for an operator, oldest first. */
  pending: PlanRequest[]
  /** The account's newest request, pending or decided. */
  latest?: PlanRequest
  /** The member's role may ask for a higher plan (admin and above). */
  mayRequest: boolean
  /** Just sent (after the redirect). */
  sent?: boolean
  /** A refused form: the message, and what was typed. */
  error?: string
  values?: { plan?: string; note?: string }
}

/** Text typed over several lines, shown with its line breaks. */
const lines = (text: string): Html[] => text.split('\n').map((line, i) => html`${i > 0 ? html`<br>` : ''}${line}`)

function waiting(pending: PlanRequest[], sent: boolean): Html {
  if (pending.length === 0) return html``
  const each = pending
    .map((r) => `Your request for the ${r.plan} plan, sent ${when(r.createdAt)}, is waiting for an operator.`)
    .join(' ')
  const text = `${each} We will email you when ${pending.length === 1 ? 'it is' : 'each is'} decided.`
  return notice(sent ? 'success' : 'info', sent ? `Request sent. ${text}` : text)
}

/** The latest decision, unless a newer request waits. */
function decision(latest: PlanRequest | undefined): Html {
  if (!latest || latest.state === 'pending') return html``
  if (latest.state === 'approved')
    return html`<p>Your request for the ${latest.plan} plan was approved ${when(latest.decidedAt)}.</p>`
  return html`<div class="notice notice-info" role="status"><p>Your request for the ${latest.plan} plan was \
declined ${when(latest.decidedAt)}. The reason given:</p>
<p>${lines(latest.reason ?? '')}</p></div>`
}

// A throwaway sign-up cannot fill the operators' queue: the form waits for a verified address.
const verifyFirst = (csrf: string) =>
  html`${notice('info', 'Verify your email address to ask for a higher plan: open the link we sent you.')}
<form method="post" action="/portal/verify/resend">${csrfField(csrf)}<button type="submit" class="secondary">Send the \
link again</button></form>`

function requestForm(input: PlanRequestBlock, plans: Plan[]): Html {
  const chosen = input.values?.plan
  return html`<p class="muted">An operator reviews each request; the new quota applies from the next request once it \
is approved.</p>
<form method="post" action="/portal/plan-requests" class="stacked">${csrfField(input.csrf)}
<div><label for="plan">Plan</label><select id="plan" name="plan">${plans.map(
    (p) => html`<option \
value="${p}"${p === chosen ? html` selected` : ''}>${planChoice(p)}</option>`,
  )}</select></div>
<div><label for="note">Note</label><span class="hint" id="note-hint">Optional: what you need it for, up \
to ${number(NOTE_MAX)} characters.</span>
<textarea id="note" name="note" rows="4" maxlength="${NOTE_MAX}" aria-describedby="note-hint">\
${input.values?.note ?? ''}</textarea></div>
<div class="row-actions"><button type="submit">Request a higher plan</button></div></form>`
}

export function planRequestBlock(input: PlanRequestBlock): Html {
  const higher = higherPlans(input.currentPlan)
  if (higher.length === 0 && !input.latest && !input.error) return html``
  // A plan already asked for is not offered again while that request waits.
  const plans = higher.filter((p) => !input.pending.some((r) => r.plan === p))
  const full = input.pending.length >= PENDING_PER_ACCOUNT
  let form: Html = html``
  if (!input.mayRequest && higher.length > 0)
    form = html`<p class="muted">An admin or owner of the account can ask for a higher plan.</p>`
  else if (!input.verified && higher.length > 0) form = verifyFirst(input.csrf)
  else if (full)
    form = html`<p class="muted">${PENDING_PER_ACCOUNT} requests are waiting, the most an account may have: you can \
ask again once one is decided.</p>`
  else if (plans.length > 0) form = requestForm(input, plans)
  return html`<h2 id="higher-plan">A higher \
plan</h2>${notice('error', input.error)}${waiting(input.pending, input.sent === true)}${decision(input.latest)}
${form}`
}
