// The second factors' part of the account page (authenticator app, passkeys, recovery codes) and the pages of
// adding them. Passkey forms work with the portal's script (passkeys need it); without it they stay hidden and the
// page says so.
import { html, type Html } from '../kit/html.js'
import { when } from '../kit/when.js'
import { csrfField, notice } from './layout.js'
import type { TwoFactorStatus } from '../../modules/two-factor/two-factor.types.js'

const at = (ms: number | null) => (ms === null ? 'never' : when(new Date(ms).toISOString()))

/** A passkey form: the ceremony's answer goes in `response` (empty until the script fills it). */
export function passkeyForm(input: {
  csrf: string
  purpose: 'register' | 'sign_in' | 'confirm'
  options: string
  action: string
  button: string
  fields?: Html | string
  className?: string
}): Html {
  return html`<form method="post" action="${input.action}" data-passkey="${input.purpose}" \
data-options="${input.options}" class="${input.className ?? 'stacked'}">${csrfField(input.csrf)}\
<input type="hidden" name="response" value="">${input.fields ?? ''}
<div data-passkey-only hidden><button type="submit">${input.button}</button> <span data-passkey-status \
role="status"></span></div>
<noscript><p class="muted">Passkeys need JavaScript in this browser.</p></noscript></form>`
}

function passkeysTable(csrf: string, status: TwoFactorStatus): Html {
  if (status.passkeys.length === 0) return html`<p>No passkey yet.</p>`
  const rows = status.passkeys.map(
    (p) => html`<tr><th scope="row" data-label="Name">${p.name}</th><td data-label="Added">${at(p.createdAt)}</td>
<td data-label="Last used">${at(p.lastUsedAt)}</td><td class="actions"><form method="post" \
action="/portal/account/passkeys/${p.id}/remove">${csrfField(csrf)}<button type="submit" class="secondary small" \
aria-label="Remove passkey ${p.name}">Remove</button></form></td></tr>`,
  )
  return html`<table class="cards"><thead><tr><th scope="col">Name</th><th scope="col">Added</th><th \
scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${rows}</tbody></table>`
}

const lastWarning = (status: TwoFactorStatus, removing: 'app' | 'passkey') => {
  const left = (status.app ? 1 : 0) + status.passkeys.length
  const last = removing === 'app' ? status.app && left === 1 : !status.app && status.passkeys.length === 1
  return last ? html`<p class="muted">It is your only second factor: removing it turns two-factor log-in off.</p>` : ''
}

export function twoFactorSection(input: {
  csrf: string
  status: TwoFactorStatus
  verified: boolean
  appAvailable: boolean
}): Html {
  const { csrf, status } = input
  const state = status.enabled
    ? html`<p><strong>Two-factor log-in is on.</strong> Logging in with your password also asks for a code from your \
authenticator app, a passkey or a recovery code; a passkey alone also signs you in.</p>`
    : html`<p><strong>Two-factor log-in is off.</strong> Your password alone opens your account. Add an authenticator \
app or a passkey to turn it on.</p>`
  if (!input.verified) return html`${state}<p>Verify your address first (open the link we sent to it).</p>`
  const app = status.app
    ? html`<p>An authenticator app is set up.</p>${lastWarning(status, 'app')}<form method="post" \
action="/portal/account/app/remove">${csrfField(csrf)}<button type="submit" class="secondary">Remove authenticator \
app</button></form>`
    : input.appAvailable
      ? html`<p>Use an app such as 1Password, Google Authenticator or Authy for 6-digit codes.</p><form method="post" \
action="/portal/account/app">${csrfField(csrf)}<button type="submit">Set up authenticator app</button></form>`
      : html`<p class="muted">Authenticator apps are not available on this service (its operators have not set \
PETSTORE_SECRETS_KEY). Add a passkey instead.</p>`
  const codes = status.enabled
    ? html`<h3>Recovery codes</h3><p>${status.recoveryCodesLeft} of 10 unused. Each logs you in once if you lose your \
app and passkeys.</p><form method="post" action="/portal/account/recovery-codes">${csrfField(csrf)}<button \
type="submit" class="secondary">Make new recovery codes</button></form>`
    : ''
  return html`${state}
<h3>Authenticator app</h3>${app}
<h3>Passkeys</h3>${passkeysTable(csrf, status)}${status.passkeys.length === 1 ? lastWarning(status, 'passkey') : ''}
${passkeyForm({
  csrf,
  purpose: 'register',
  options: '/portal/account/passkeys/options',
  action: '/portal/account/passkeys',
  button: 'Add a passkey',
  fields: html`<div><label for="passkey-name">Passkey name</label><span class="hint" id="passkey-name-hint">To tell \
it apart later, e.g. "Work laptop".</span><input id="passkey-name" name="name" type="text" maxlength="60" \
aria-describedby="passkey-name-hint"></div>`,
})}
${codes}`
}

/** The app's enrolment: scan (or type) the secret, then confirm with the first code. */
export function appEnrolPage(input: { csrf: string; qr: Html; secret: string; error?: string }): Html {
  const grouped = input.secret.replace(/(.{4})/g, '$1 ').trim()
  return html`${notice('error', input.error)}<ol><li>Scan this code with your authenticator app:
<div class="qr">${input.qr}</div>
</li><li>Or type this secret in it: <code class="secret" id="totp-secret">${grouped}</code></li>
<li>Enter the 6-digit code the app shows:</li></ol>
<form method="post" action="/portal/account/app/confirm" class="stacked">${csrfField(input.csrf)}
<div><label for="code">Code</label><input id="code" name="code" type="text" inputmode="numeric" \
autocomplete="one-time-code" required maxlength="12" spellcheck="false" autofocus></div>
<div><button type="submit">Turn on</button> <a href="/portal/account">Cancel</a></div></form>`
}

/** Recovery codes, shown once. */
export const recoveryCodesPage = (codes: string[], intro: string): Html =>
  html`${notice('success', intro)}<p>Keep these recovery codes somewhere safe (a password manager, or printed). Each \
logs you in once if you lose your authenticator app and passkeys. <strong>They are shown only now.</strong></p>
<ul class="codes" id="recovery-codes">${codes.map((c) => html`<li><code>${c}</code></li>`)}</ul>
<p><button type="button" class="secondary" data-copy="recovery-codes" data-status="copy-status" hidden>Copy \
codes</button> <span id="copy-status" role="status"></span></p>
<p><a class="button" href="/portal/account">Done</a></p>`

/** The page after a passkey form arrived without the browser's answer (after a confirmation): one button. */
export const addPasskeyPage = (csrf: string, name: string): Html =>
  html`<p>Your browser will ask you to create a passkey for this account (with your fingerprint, face, screen lock \
or security key).</p>${passkeyForm({
    csrf,
    purpose: 'register',
    options: '/portal/account/passkeys/options',
    action: '/portal/account/passkeys',
    button: 'Create passkey',
    fields: html`<input type="hidden" name="name" value="${name}">`,
  })}<p><a href="/portal/account">Cancel</a></p>`
