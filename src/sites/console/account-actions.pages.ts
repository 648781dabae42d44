// The confirmation step of each account action: a page of its own (so it works without JavaScript and with the
// keyboard alone), saying what will happen, with the action's fields and its button; nothing changes before it is
// sent. After a refusal the same page comes back with what was wrong.
import type { Account, ApiKeyInfo } from '../../modules/accounts/accounts.repository.js'
import { REASON_MAX } from '../../modules/accounts/account-changes.js'
import { PLAN_QUOTAS, PLANS } from '../../modules/accounts/plans.js'
import type { PortalUserSummary } from '../../modules/integrators/verification.js'
import type { TwoFactorStatus } from '../../modules/two-factor/two-factor.types.js'
import { html, type Html } from '../kit/html.js'
import { when } from '../kit/when.js'
import { keyLabel, planText, stateText } from './account.pages.js'
import { csrfField, notice } from './layout.js'

const accountHref = (account: Account) => `/console/accounts/${encodeURIComponent(account.id)}`
const number = (n: number) => n.toLocaleString('en-US')

/** Which account this is about, at the top of every confirmation page. */
const about = (account: Account) =>
  html`<p>Account <strong>${account.name}</strong> (<code>${account.id}</code>), plan ${planText(account)}. \
State: ${stateText(account)}.</p>`

function confirmForm(input: {
  csrf: string
  account: Account
  action: string
  button: string
  danger?: boolean
  fields?: Html
}): Html {
  return html`<form method="post" action="${accountHref(input.account)}/${input.action}" \
class="stacked">${csrfField(input.csrf)}${input.fields ?? ''}
<div class="row-actions"><button type="submit"${input.danger ? html` class="danger"` : ''}>${input.button}</button><a \
href="${accountHref(input.account)}">Cancel</a></div>
</form>`
}

/** A plan as the plan forms list it: `pro (300 per minute, 10,000 per day)`. */
export const planLabel = (plan: string) =>
  plan === 'enterprise'
    ? 'enterprise (its own quotas, below)'
    : `${plan} (${number(PLAN_QUOTAS[plan as keyof typeof PLAN_QUOTAS].perMinute)} per minute, ` +
      `${number(PLAN_QUOTAS[plan as keyof typeof PLAN_QUOTAS].perDay)} per day)`

interface PlanValues {
  plan?: string
  perMinute?: string
  perDay?: string
  error?: string
}

export function planPage(csrf: string, account: Account, values: PlanValues = {}): Html {
  const selected = values.plan ?? account.plan
  const quota = (name: 'per_minute' | 'per_day', label: string, value: string | undefined) =>
    html`<div><label for="${name}">${label}</label><span class="hint" id="${name}-hint">Enterprise only (ignored for \
the other plans): a whole number from 1.</span>
<input id="${name}" name="${name}" type="text" inputmode="numeric" maxlength="16" value="${value ?? ''}" \
aria-describedby="${name}-hint"></div>`
  const enterprise = account.plan === 'enterprise'
  const fields = html`<div><label for="plan">Plan</label><select id="plan" name="plan">${PLANS.map(
    (p) => html`<option \
value="${p}"${p === selected ? html` selected` : ''}>${planLabel(p)}</option>`,
  )}</select></div>
${quota('per_minute', 'Requests per minute', values.perMinute ?? (enterprise ? String(account.quota.perMinute) : ''))}
${quota('per_day', 'Requests per day', values.perDay ?? (enterprise ? String(account.quota.perDay) : ''))}`
  return html`${notice('error', values.error)}${about(account)}
<p>The new limits apply from the next request of any of its keys. The change is recorded in the audit log with your \
email.</p>
${confirmForm({ csrf, account, action: 'plan', button: 'Change plan', fields })}`
}

/**
 * Suspend and Delete account: a reason is required; it goes into the audit log (and, for a suspension, to the owner).
 */
export function reasonPage(
  csrf: string,
  account: Account,
  kind: 'suspend' | 'delete',
  values: { reason?: string; error?: string } = {},
): Html {
  const what =
    kind === 'suspend'
      ? html`<p>Suspending refuses every API and messages request with any of its keys (403 \
<code>account_suspended</code>) on every instance from the next request on. Its keys are kept as they are: \
reactivating restores them. The owner can still log in to the portal and sees the reason.</p>`
      : html`<p><strong>Deleting cannot be undone.</strong> Every key is revoked, the portal user and its sessions are \
removed (the address can sign up again), and its pets, orders and messages are removed within a day.</p>`
  const hint =
    kind === 'suspend'
      ? "Kept in the audit log and shown to the account's owner in the portal."
      : 'Kept in the audit log.'
  const fields = html`<div><label for="reason">Reason</label><span class="hint" id="reason-hint">${hint} At \
most ${REASON_MAX} characters.</span>
<input id="reason" name="reason" type="text" required maxlength="${REASON_MAX}" value="${values.reason ?? ''}" \
aria-describedby="reason-hint"${values.error ? html` aria-invalid="true"` : ''} autofocus></div>`
  const button = kind === 'suspend' ? 'Suspend' : 'Delete account'
  return html`${notice('error', values.error)}${about(account)}${what}
${confirmForm({ csrf, account, action: kind, button, danger: true, fields })}`
}

export function reactivatePage(csrf: string, account: Account): Html {
  return html`${about(account)}<p>Reactivating lets its keys work again as they were before the suspension (a key \
revoked meanwhile stays revoked).</p>
${confirmForm({ csrf, account, action: 'reactivate', button: 'Reactivate' })}`
}

const keyAbout = (key: ApiKeyInfo) =>
  html`<strong class="key-name">${keyLabel(key)}</strong> (<code>${key.prefix}…</code>, id <code>${key.id}</code>)`

export function revokePage(csrf: string, account: Account, key: ApiKeyInfo): Html {
  return html`${about(account)}<p>Revoking ${keyAbout(key)} refuses it from its next request on, on every instance. \
This cannot be undone: its owner can create a new key.</p>
${confirmForm({ csrf, account, action: `keys/${encodeURIComponent(key.id)}/revoke`, button: 'Revoke', danger: true })}`
}

export function liftBanPage(csrf: string, account: Account, key: ApiKeyInfo, until: string | undefined): Html {
  const state =
    until === undefined
      ? html`It is not banned now (the ban may have ended).`
      : html`It is banned until ${when(until)} for sending too many refused requests.`
  return html`${about(account)}<p>${keyAbout(key)}: ${state}</p><p>Lifting the ban admits the key again at once, \
within its quota.</p>
${confirmForm({ csrf, account, action: `keys/${encodeURIComponent(key.id)}/unban`, button: 'Lift ban' })}`
}

export function resendPage(csrf: string, account: Account, user: PortalUserSummary): Html {
  return html`${about(account)}<p>A fresh verification link (valid 24 hours) is mailed to \
<strong>${user.email}</strong>; earlier links stop working. At most one link a minute is sent.</p>
${confirmForm({ csrf, account, action: 'verification', button: 'Resend verification' })}`
}

export function invitationAgainPage(csrf: string, account: Account, user: PortalUserSummary): Html {
  return html`${about(account)}<p>Its owner has not chosen a password yet. A fresh link (valid 7 days) is mailed to \
<strong>${user.email}</strong>; earlier links stop working. At most one link a minute is sent.</p>
${confirmForm({ csrf, account, action: 'invitation', button: 'Send the password link again' })}`
}

/** Reset second factors (admin): what goes, the check to make first, and who is told. */
export function resetSecondFactorsPage(
  csrf: string,
  account: Account,
  user: PortalUserSummary,
  status: TwoFactorStatus,
  values: { reason?: string; error?: string } = {},
): Html {
  const count = (n: number, one: string, many: string) => (n === 0 ? '' : `${n} ${n === 1 ? one : many}`)
  const factors = [
    status.app ? 'the authenticator app' : '',
    count(status.passkeys.length, 'passkey', 'passkeys'),
    count(status.recoveryCodesLeft, 'unused recovery code', 'unused recovery codes'),
  ].filter((f) => f !== '')
  const listed = factors.length > 1 ? `${factors.slice(0, -1).join(', ')} and ${factors.at(-1)}` : factors[0]
  const fields = html`<div><label for="reason">How you verified them</label><span class="hint" \
id="reason-hint">Kept in the audit log (e.g. "Called back the number on file, ticket 4127"). At most ${REASON_MAX} \
characters.</span><input id="reason" name="reason" type="text" required maxlength="${REASON_MAX}" \
value="${values.reason ?? ''}" aria-describedby="reason-hint"${values.error ? html` aria-invalid="true"` : ''} \
autofocus></div>`
  return html`${notice('error', values.error)}${about(account)}<p>Resetting removes every second factor of \
<strong>${user.email}</strong>: \
${listed}. They then log in with their password alone, until they set up two-factor log-in again.</p>
<p><strong>Only reset after verifying, out of band, that the person asking is the account's owner</strong> (for \
example by calling back a number you already had for them): whoever asks may know the password and nothing more.</p>
<p>The user is mailed that an operator reset their second factors. The reset is recorded in the audit log with your \
email.</p>
${confirmForm({ csrf, account, action: 'second-factors', button: 'Reset second factors', danger: true, fields })}`
}
