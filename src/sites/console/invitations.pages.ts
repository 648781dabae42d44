// New account (admins, where the portal is on): the address of its owner and its plan. The owner gets a link to
// choose a password; enterprise quotas are set afterwards with Change plan.
import { PLAN_QUOTAS } from '../../modules/accounts/plans.js'
import type { PortalUserSummary } from '../../modules/integrators/verification.js'
import type { Account } from '../../modules/accounts/accounts.repository.js'
import { html, type Html } from '../kit/html.js'
import { csrfField } from './layout.js'

/** Plans an account can be made on here: enterprise needs quotas of its own (Change plan, afterwards). */
export const INVITATION_PLANS = ['free', 'pro', 'business'] as const

export interface NewAccountValues {
  email?: string
  plan?: string
  error?: Html | string
}

const number = (n: number) => n.toLocaleString('en-US')

export function newAccountForm(csrf: string, values: NewAccountValues = {}): Html {
  const invalid = values.error ? html` aria-invalid="true" aria-describedby="new-account-error"` : ''
  const selected = values.plan ?? 'free'
  const options = INVITATION_PLANS.map(
    (p) =>
      html`<option value="${p}"${p === selected ? html` selected` : ''}>${p} (${number(
        PLAN_QUOTAS[p].perMinute,
      )} per minute, ${number(PLAN_QUOTAS[p].perDay)} per day)</option>`,
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

export function invitationAgainPage(csrf: string, account: Account, user: PortalUserSummary): Html {
  const href = `/console/accounts/${encodeURIComponent(account.id)}`
  return html`<p>Account <strong>${account.name}</strong> (<code>${account.id}</code>). Its owner has not chosen a \
password yet. A fresh link (valid 7 days) is mailed to <strong>${user.email}</strong>; earlier links stop working.</p>
<form method="post" action="${href}/invitation" class="stacked">${csrfField(csrf)}
<div class="row-actions"><button type="submit">Send the password link again</button><a href="${href}">Cancel</a></div>
</form>`
}
