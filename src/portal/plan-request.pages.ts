// The usage page's "A higher plan" block: the request waiting for an operator, or the latest decision, and the
// form that asks for a higher plan (the plans above the current one, and a note). None on enterprise, the highest.
import { PLAN_QUOTAS, type Plan } from '../accounts/plans.js'
import type { PlanRequest } from '../plan-requests/plan-requests.repository.js'
import { higherPlans, NOTE_MAX } from '../plan-requests/plan-request-input.js'
import { html, type Html } from '../web/html.js'
import { when } from './keys.pages.js'
import { csrfField, notice } from './layout.js'

const number = (n: number) => n.toLocaleString('en-US')

const planChoice = (plan: Plan) =>
  plan === 'enterprise' ? 'enterprise (quotas agreed with you)' : `${plan} (${number(PLAN_QUOTAS[plan].perMinute)} per minute, ${number(PLAN_QUOTAS[plan].perDay)} per day)`

export interface PlanRequestBlock {
  csrf: string
  currentPlan: string
  /** The account's newest request, pending or decided. */
  latest?: PlanRequest
  /** Just sent (after the redirect). */
  sent?: boolean
  /** A refused form: the message, and what was typed. */
  error?: string
  values?: { plan?: string; note?: string }
}

/** Text typed over several lines, shown with its line breaks. */
const lines = (text: string): Html[] => text.split('\n').map((line, i) => html`${i > 0 ? html`<br>` : ''}${line}`)

function state(latest: PlanRequest | undefined, sent: boolean): Html {
  if (!latest) return html``
  if (latest.state === 'pending') {
    const text = `Your request for the ${latest.plan} plan, sent ${when(latest.createdAt)}, is waiting for an operator. We will email you when it is decided.`
    return notice(sent ? 'success' : 'info', sent ? `Request sent. ${text}` : text)
  }
  if (latest.state === 'approved') return html`<p>Your request for the ${latest.plan} plan was approved ${when(latest.decidedAt)}.</p>`
  return html`<div class="notice notice-info" role="status"><p>Your request for the ${latest.plan} plan was declined ${when(latest.decidedAt)}. The reason given:</p>
<p>${lines(latest.reason ?? '')}</p></div>`
}

export function planRequestBlock(input: PlanRequestBlock): Html {
  const plans = higherPlans(input.currentPlan)
  const waiting = input.latest?.state === 'pending'
  if (plans.length === 0 && !input.latest && !input.error) return html``
  const chosen = input.values?.plan
  const form =
    plans.length === 0 || waiting
      ? html``
      : html`<form method="post" action="/portal/plan-requests" class="stacked">${csrfField(input.csrf)}
<div><label for="plan">Plan</label><select id="plan" name="plan">${plans.map((p) => html`<option value="${p}"${p === chosen ? html` selected` : ''}>${planChoice(p)}</option>`)}</select></div>
<div><label for="note">Note</label><span class="hint" id="note-hint">Optional: what you need it for, up to ${number(NOTE_MAX)} characters.</span>
<textarea id="note" name="note" rows="4" maxlength="${NOTE_MAX}" aria-describedby="note-hint">${input.values?.note ?? ''}</textarea></div>
<div class="row-actions"><button type="submit">Request a higher plan</button></div></form>`
  return html`<h2 id="higher-plan">A higher plan</h2>${notice('error', input.error)}${state(input.latest, input.sent === true)}
${plans.length > 0 && !waiting ? html`<p class="muted">An operator reviews each request; the new quota applies from the next request once it is approved.</p>` : ''}${form}`
}
