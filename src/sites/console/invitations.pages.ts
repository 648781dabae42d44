// New account (admins, where the portal is on): the address of its owner and its plan. The owner gets a link to
// choose a password; enterprise quotas are set afterwards with Change plan.
import { html, type Html } from '../kit/html.js'
import { csrfField } from './layout.js'
import { planLabel } from './account-actions.pages.js'

/** Plans an account can be made on here: enterprise needs quotas of its own (Change plan, afterwards). */
export const INVITATION_PLANS = ['free', 'pro', 'business'] as const

export interface NewAccountValues {
  email?: string
  plan?: string
  error?: Html | string
}

export function newAccountForm(csrf: string, values: NewAccountValues = {}): Html {
  const invalid = values.error ? html` aria-invalid="true" aria-describedby="new-account-error"` : ''
  const selected = values.plan ?? 'free'
  const options = INVITATION_PLANS.map(
    (p) => html`<option value="${p}"${p === selected ? html` selected` : ''}>${planLabel(p)}</option>`,
  )
  return html`<p>The account's owner gets a link (valid 7 days) to choose a password, which also verifies the \
address; then they log in to the portal and create keys.</p>
<form method="post" action="/console/accounts/new" class="stacked">${csrfField(csrf)}
${values.error ? html`<div class="notice notice-error" role="alert" id="new-account-error">${values.error}</div>` : ''}
<div><label for="email">Owner's email</label><input id="email" name="email" type="email" required maxlength="320" \
autocomplete="off" value="${values.email ?? ''}"${invalid}></div>
<div><label for="plan">Plan</label><select id="plan" name="plan">${options}</select></div>
<div class="row-actions"><button type="submit">Create account and mail the link</button><a \
href="/console/accounts">Cancel</a></div></form>`
}
