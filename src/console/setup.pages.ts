// The setup page: a password (the portal's rules), the authenticator to enrol (its otpauth:// URI as a QR code,
// an SVG drawn on the server and put in the page itself, and as text), and a current code to confirm it; then the
// recovery codes, shown this once.
import { createRequire } from 'node:module'
import { PASSWORD_MAX, PASSWORD_MIN } from '../web/passwords.js'
import { Html, html } from '../web/html.js'
import { csrfField, notice } from './layout.js'

/** The QR code of `uri` as SVG markup (presentation attributes only: nothing the CSP refuses). */
export async function qrSvg(uri: string): Promise<Html> {
  // Loaded when a setup page is first shown, not at every start.
  const QRCode = createRequire(import.meta.url)('qrcode') as typeof import('qrcode')
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 })
  return new Html(svg.replace('<svg ', '<svg role="img" aria-label="QR code of the authenticator link" focusable="false" '))
}

export async function setupForm(csrf: string, input: { token: string; email: string; uri: string; secret: string; error?: string }): Promise<Html> {
  return html`${notice('error', input.error)}
<p>Set up the operator account of <strong>${input.email}</strong>. You will log in with this password and a code from an authenticator app.</p>
<form method="post" action="/console/setup/${input.token}" class="stacked">${csrfField(csrf)}
<input type="text" name="username" value="${input.email}" autocomplete="username" hidden>
<div><label for="password">Password</label><span class="hint" id="password-hint">${PASSWORD_MIN}–${PASSWORD_MAX} characters; not a common password, your email or a simple sequence. A few words make a good one.</span>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN}" maxlength="${PASSWORD_MAX}" aria-describedby="password-hint"${input.error ? '' : html` autofocus`}></div>
<div><h2 id="authenticator">Authenticator</h2>
<p>Scan this QR code with an authenticator app (any app for time-based codes: TOTP, SHA-1, 6 digits, 30 seconds).</p>
<div class="qr">${await qrSvg(input.uri)}</div>
<p>Or enter this key by hand: <code class="secret">${input.secret}</code></p>
<details><summary>The whole link</summary><p><code class="otpauth-uri">${input.uri}</code></p></details></div>
<div><label for="code">Code</label><span class="hint" id="code-hint">The 6-digit code your app shows now, to confirm it is set up.</span>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required maxlength="64" spellcheck="false" aria-describedby="code-hint"></div>
<div><button type="submit">Set up</button></div>
</form>`
}

export function recoveryCodesPage(codes: string[]): Html {
  return html`${notice('success', 'Your operator account is set up.')}
<p>These are your recovery codes. Each one logs you in once in place of an authenticator code, if you lose your phone.
<strong>They are shown only now</strong>: keep them somewhere safe (a password manager), apart from your password.</p>
<ol class="recovery-codes" aria-label="Recovery codes">${codes.map((code) => html`<li><code>${code}</code></li>`)}</ol>
<p><a class="button" href="/console/login">Log in</a></p>`
}

export const setupLinkUnusable = html`${notice('error', 'This setup link has expired or was already used.')}
<p>A setup link works once, for 24 hours. Ask an admin for a new one (<code>petstore operators create</code>).</p>`
