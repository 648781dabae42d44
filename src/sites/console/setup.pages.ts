// The setup pages: a password (the portal's rules); then, for the browser that sent it, the authenticator to enrol
// (its otpauth:// URI as a QR code, an SVG drawn on the server and put in the page itself, and as text) and a
// current code to confirm it; then the recovery codes, shown this once.
import { PASSWORD_MAX, PASSWORD_MIN } from '../../kernel/passwords.js'
import { type Html, html } from '../kit/html.js'
import { qrSvg } from '../kit/qr-code.js'
import { csrfField, notice } from './layout.js'

/** The link's first page: the new password only. Nothing secret is on it (a link preview may be what opens it). */
export function passwordForm(csrf: string, input: { token: string; email: string; error?: string }): Html {
  return html`${notice('error', input.error)}
<p>Set up the operator account of <strong>${input.email}</strong>. You will log in with this password and a code from \
an authenticator app, which you enrol next.</p>
<form method="post" action="/console/setup/${input.token}" class="stacked">${csrfField(csrf)}
<input type="text" name="username" value="${input.email}" autocomplete="username" hidden>
<div><label for="password">Password</label><span class="hint" id="password-hint">${PASSWORD_MIN}–${PASSWORD_MAX} \
characters; not a common password, your email or a simple sequence. A few words make a good one.</span>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN}" \
maxlength="${PASSWORD_MAX}" aria-describedby="password-hint"${input.error ? '' : html` autofocus`}></div>
<div><button type="submit">Continue</button></div>
</form>`
}

/** The second page, for the browser that sent the password: the authenticator made for it, and a code to confirm it. */
export async function authenticatorForm(
  csrf: string,
  input: { token: string; email: string; uri: string; secret: string; error?: string },
): Promise<Html> {
  return html`${notice('error', input.error)}
<p>Now enrol an authenticator app for <strong>${input.email}</strong>. This key was made for this browser only: if you \
open the link again, a new one replaces it.</p>
<form method="post" action="/console/setup/${input.token}/confirm" class="stacked">${csrfField(csrf)}
<div><h2 id="authenticator">Authenticator</h2>
<p>Scan this QR code with an authenticator app (any app for time-based codes: TOTP, SHA-1, 6 digits, 30 seconds).</p>
<div class="qr">${await qrSvg(input.uri)}</div>
<p>Or enter this key by hand: <code class="secret">${input.secret}</code></p>
<details><summary>The whole link</summary><p><code class="otpauth-uri">${input.uri}</code></p></details></div>
<div><label for="code">Code</label><span class="hint" id="code-hint">The 6-digit code your app shows now, to confirm \
it is set up.</span>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required maxlength="64" \
spellcheck="false" aria-describedby="code-hint"${input.error ? '' : html` autofocus`}></div>
<div><button type="submit">Set up</button></div>
</form>`
}

/** A code sent from a browser whose offer is not the current one: nothing of the current one is shown. */
export const setupStartedElsewhere = (
  token: string,
) => html`${notice('error', 'This setup was started again in another browser, or never in this one.')}
<p>The key shown in another browser (or earlier in this one) no longer counts. <a href="/console/setup/${token}">Start \
again</a> here: set your password, then scan the new key. If you did not open the link anywhere else, someone else has \
it: tell an admin.</p>`

export function recoveryCodesPage(codes: string[]): Html {
  return html`${notice('success', 'Your operator account is set up.')}
<p>These are your recovery codes. Each one logs you in once in place of an authenticator code, if you lose your phone.
<strong>They are shown only now</strong>: keep them somewhere safe (a password manager), apart from your password.</p>
<ol class="recovery-codes" aria-label="Recovery codes">${codes.map((code) => html`<li><code>${code}</code></li>`)}</ol>
<p><a class="button" href="/console/login">Log in</a></p>`
}

export const setupLinkUnusable = html`${notice('error', 'This setup link has expired or was already used.')}
<p>A setup link works once, for 24 hours. Ask an admin for a new one (<code>petstore operators create</code>).</p>`
