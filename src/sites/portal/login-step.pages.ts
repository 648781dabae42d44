// The second step of log-in (a password was right and the account has two-factor log-in on), and the passkey
// button of the log-in page.
import { html, type Html } from '../kit/html.js'
import { csrfField, notice } from './layout.js'
import { passkeyForm } from './two-factor.pages.js'

const nextField = (next: string) =>
  next !== '/portal/keys' ? html`<input type="hidden" name="next" value="${next}">` : ''

export function secondStepPage(input: { csrf: string; next: string; passkey: boolean; error?: string }): Html {
  const passkey = input.passkey
    ? passkeyForm({
        csrf: input.csrf,
        purpose: 'sign_in',
        options: '/portal/passkey/options',
        action: '/portal/login/passkey',
        button: 'Use a passkey',
        fields: nextField(input.next),
      })
    : ''
  return html`${notice('error', input.error)}<p>Your account has two-factor log-in on.</p>
<form method="post" action="/portal/login/code" class="stacked">${csrfField(input.csrf)}${nextField(input.next)}
<div><label for="code">Code</label><span class="hint" id="code-hint">The 6-digit code of your authenticator app, or \
one of your recovery codes (lost your app and passkeys? use one).</span><input id="code" name="code" type="text" \
autocomplete="one-time-code" required maxlength="64" spellcheck="false" autocapitalize="none" \
aria-describedby="code-hint" autofocus></div>
<div><button type="submit">Verify</button></div></form>
${passkey}<p><a href="/portal/login">Start again</a></p>`
}

/** Under the log-in form: a passkey signs in alone. */
export const passkeySignIn = (csrf: string, next: string): Html =>
  passkeyForm({
    csrf,
    purpose: 'sign_in',
    options: '/portal/passkey/options',
    action: '/portal/login/passkey',
    button: 'Sign in with a passkey',
    fields: nextField(next),
    className: 'passkey-sign-in',
  })
