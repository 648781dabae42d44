// The pages of signing up, verifying, logging in and resetting a password. Labels and button texts are what
// people (and the browser tests) find the controls by: Email, Password, New password, Create account, Log in.
import { html, type Html } from '../kit/html.js'
import { csrfField, notice } from './layout.js'
import { PASSWORD_MAX, PASSWORD_MIN } from '../../kernel/passwords.js'

const emailField = (email = '', autofocus = true) =>
  html`<div><label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" \
required maxlength="254" value="${email}"${autofocus ? html` autofocus` : ''}></div>`

/** A password field; a new password's field says the rules (every form that sets a password uses this one). */
export function passwordInput(id: string, name: string, label: string, isNew = false): Html {
  const hint = isNew
    ? html`<span class="hint" id="${id}-hint">${PASSWORD_MIN} to ${PASSWORD_MAX} characters. A few unrelated words \
make a strong one. Refused: common or easy-to-guess passwords, repeated or sequential characters, and anything \
resembling your email address or the product's name.</span>`
    : ''
  const rules = isNew
    ? html` minlength="${PASSWORD_MIN}" maxlength="${PASSWORD_MAX}" aria-describedby="${id}-hint"`
    : ''
  return html`<div><label for="${id}">${label}</label>${hint}<input id="${id}" name="${name}" type="password" required \
autocomplete="${isNew ? 'new-password' : 'current-password'}"${rules}></div>`
}

const passwordField = (label: 'Password' | 'New password', isNew: boolean): Html =>
  passwordInput('password', 'password', label, isNew)

export function signupForm(csrf: string, input: { email?: string; error?: string } = {}): Html {
  return html`${notice('error', input.error)}
<p>Create an account to get API keys for the Petstore API. We will send a link to verify your address.</p>
<form method="post" action="/portal/signup" class="stacked">${csrfField(csrf)}
${emailField(input.email)}
${passwordField('Password', true)}
<div><button type="submit">Create account</button></div>
</form>
<p>Already have an account? <a href="/portal/login">Log in</a>.</p>`
}

/** The same page whether the address was new or already had an account: it tells nobody which. */
/** PORTAL_SIGNUP=closed: what the sign-up page says instead of its form. */
export const signupClosedPage = (): Html =>
  html`<p>Accounts are not opened here: the people who run this service make them. Ask them for one; you will get \
a link by mail to choose your password.</p>
<p>Have an account already? <a href="/portal/login">Log in</a>.</p>`

export const checkEmailPage = (email: string): Html =>
  html`<p>We sent a message to <strong>${email}</strong>. Open the link in it to finish (it works for 24 hours).</p>
<p class="muted">Nothing arrived after a few minutes? Look in your spam folder, or <a href="/portal/signup">try \
again</a>.</p>`

export function loginForm(
  csrf: string,
  input: { email?: string; error?: string; info?: string; next?: string; signupClosed?: boolean } = {},
): Html {
  const next =
    input.next && input.next !== '/portal/keys' ? html`<input type="hidden" name="next" value="${input.next}">` : ''
  return html`${notice('error', input.error)}${notice('success', input.info)}
<form method="post" action="/portal/login" class="stacked">${csrfField(csrf)}${next}
${emailField(input.email)}
${passwordField('Password', false)}
<div><button type="submit">Log in</button></div>
</form>
<p><a href="/portal/reset-request">Forgot your password?</a>${
    input.signupClosed ? '' : html` · <a href="/portal/signup">Create an account</a>`
  }</p>`
}

export const tokenForm = (csrf: string, action: string, token: string, button: string, intro: string): Html =>
  html`<p>${intro}</p><form method="post" action="${action}" class="stacked">${csrfField(csrf)}<input type="hidden" \
name="token" value="${token}"><div><button type="submit">${button}</button></div></form>`

export const linkUnusable = (again: Html): Html =>
  html`${notice('error', 'This link has expired or was already used.')}<p>${again}</p>`

export function resetRequestForm(csrf: string, input: { email?: string; error?: string } = {}): Html {
  return html`${notice('error', input.error)}
<p>Enter the address of your account: we will send it a link to choose a new password.</p>
<form method="post" action="/portal/reset-request" class="stacked">${csrfField(csrf)}
${emailField(input.email)}
<div><button type="submit">Send reset link</button></div>
</form>`
}

export const resetRequestedPage = (email: string): Html =>
  html`<p>If an account exists for <strong>${email}</strong>, we sent it a link to choose a new password. The link \
works for 1 hour.</p>`

export function newPasswordForm(csrf: string, token: string, error?: string): Html {
  return html`${notice('error', error)}
<form method="post" action="/portal/reset" class="stacked">${csrfField(csrf)}<input type="hidden" name="token" \
value="${token}">
${passwordField('New password', true)}
<div><button type="submit">Set new password</button></div>
</form>`
}
