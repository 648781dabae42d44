// The confirmation asked before a sensitive change (sudo.ts), and the page that carries the kept form on.
import { html, type Html } from '../kit/html.js'
import { csrfField, notice } from './layout.js'
import { passwordInput } from './account.pages.js'
import { passkeyForm } from './two-factor.pages.js'

export type KeptForm = Record<string, string | string[]>

interface ConfirmInput {
  csrf: string
  action: string
  returnTo: string
  kept: KeptForm
  /** What the person can confirm with. */
  factors: { code: boolean; passkey: boolean; password: boolean }
  error?: string
}

const carried = (input: ConfirmInput) =>
  html`<input type="hidden" name="return_to" value="${input.returnTo}"><input type="hidden" name="kept" \
value="${JSON.stringify(input.kept)}">`

export function confirmPage(input: ConfirmInput): Html {
  const { factors } = input
  const passkey = factors.passkey
    ? passkeyForm({
        csrf: input.csrf,
        purpose: 'confirm',
        options: '/portal/passkey/options',
        action: '/portal/sudo',
        button: 'Confirm with a passkey',
        fields: carried(input),
      })
    : ''
  const code = factors.code
    ? html`<form method="post" action="/portal/sudo" class="stacked">${csrfField(input.csrf)}${carried(input)}
<div><label for="code">Code</label><span class="hint" id="code-hint">The 6-digit code of your authenticator app, or \
one of your recovery codes.</span><input id="code" name="code" type="text" autocomplete="one-time-code" required \
maxlength="64" spellcheck="false" autocapitalize="none" aria-describedby="code-hint" autofocus></div>
<div><button type="submit">Confirm</button></div></form>`
    : ''
  const password = factors.password
    ? html`<form method="post" action="/portal/sudo" class="stacked">${csrfField(input.csrf)}${carried(input)}
${passwordInput('sudo-password', 'password', 'Password')}
<div><button type="submit">Confirm</button></div></form>`
    : ''
  return html`${notice('error', input.error)}<p>To <strong>${input.action}</strong>, confirm it is you. What you \
entered is kept, and the change is made once you have confirmed. You will not be asked again for a while.</p>
${passkey}${code}${password}<p><a href="/portal/account">Cancel</a></p>`
}

/** After the confirmation: the kept form, sent on by the portal's script (or by the button without it). */
export function continuePage(csrf: string, returnTo: string, kept: KeptForm): Html {
  const fields = Object.entries(kept).flatMap(([name, value]) =>
    (Array.isArray(value) ? value : [value]).map((v) => html`<input type="hidden" name="${name}" value="${v}">`),
  )
  return html`${notice('success', 'Confirmed.')}<form method="post" action="${returnTo}" \
data-autosubmit>${csrfField(csrf)}${fields}<button type="submit">Continue</button></form>`
}
