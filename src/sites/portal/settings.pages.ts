// The account settings page (/portal/account): address, password, sessions and deletion, one section each with
// its own form, and the pages of a change of address. Every form that changes something asks for the current
// password but "Log out other sessions" (it only takes access away). Deleting the account is an owner's: other
// members read who can.
import { html, type Html } from '../kit/html.js'
import { when } from './keys.pages.js'
import { csrfField, notice } from './layout.js'
import { passwordInput } from './account.pages.js'
import type { SessionListing } from '../../modules/integrators/settings.repository.js'
import { browserSummary, readableAddress } from './user-agent.js'

export type SettingsForm = 'email' | 'password' | 'two-factor' | 'sessions' | 'delete'

export interface SettingsInput {
  csrf: string
  email: string
  /** Whether the address is verified: only a verified one can be changed. */
  verified: boolean
  sessions: SessionListing[]
  /** What was just done (after a redirect): a confirmation on top. */
  done?: string
  /** A refused form: which, and why (shown in its section). */
  error?: { form: SettingsForm; message: string }
  /** What was typed in the new-email field, kept when the form is refused. */
  newEmail?: string
  /** The second factors' section (two-factor.pages.ts). */
  twoFactor: Html
  /** The member's role may delete the account (owner). */
  mayDelete: boolean
}

const DONE: Record<string, string> = {
  password: 'Your password was changed, and every other session was logged out.',
  sessions: 'Every other session was logged out.',
  app: 'The authenticator app is set up.',
  'app-removed': 'The authenticator app was removed.',
  passkey: 'The passkey was added.',
  'passkey-removed': 'The passkey was removed.',
  'two-factor-required':
    'This account requires two-factor log-in: set up an authenticator app or a passkey below before anything else.',
}

const at = (ms: number) => when(new Date(ms).toISOString())

function section(id: SettingsForm, title: string, content: Html): Html {
  return html`<section class="settings" aria-labelledby="${id}-heading"><h2 \
id="${id}-heading">${title}</h2>${content}</section>`
}

function sessionsTable(sessions: SessionListing[]): Html {
  const rows = sessions.map(
    (s) => html`<tr${s.current ? html` class="current"` : ''}><th scope="row" \
data-label="Browser">${browserSummary(s.userAgent)}${s.current ? html` <span class="tag">This session</span>` : ''}</th>
<td data-label="Address"><code>${readableAddress(s.address)}</code></td><td data-label="Signed \
in">${at(s.createdAt)}</td><td data-label="Last seen">${at(s.lastSeenAt)}</td></tr>`,
  )
  return html`<table class="sessions cards"><caption class="muted">Browsers signed in to your account. A session ends \
after 30 idle minutes, 12 hours after log-in, or at log-out.</caption>
<thead><tr><th scope="col">Browser</th><th scope="col">Address</th><th scope="col">Signed in</th><th scope="col">Last \
seen</th></tr></thead>
<tbody>${rows}</tbody></table>`
}

function emailForm(input: SettingsInput, error: Html): Html {
  return html`${error}<p>Your address is <strong>${input.email}</strong>. A new one takes effect when you open the \
link we send to it.</p>
<form method="post" action="/portal/account/email" class="stacked">${csrfField(input.csrf)}
<div><label for="new-email">New email</label><input id="new-email" name="new_email" type="email" autocomplete="email" \
required maxlength="254" value="${input.newEmail ?? ''}"></div>
${passwordInput('email-password', 'password', 'Current password')}
<div><button type="submit">Change email</button></div></form>`
}

/** An unverified address cannot be changed: whoever signed up in someone else's name must not move the account. */
const unverifiedEmail = (input: SettingsInput, error: Html): Html =>
  html`${error}<p>Your address is <strong>${input.email}</strong>, not verified yet. ${VERIFY_FIRST}</p>`

export const VERIFY_FIRST = 'Open the link we sent to it (or send it again from the keys page) before changing it.'

export function settingsPage(input: SettingsInput): Html {
  const errorIn = (form: SettingsForm) => notice('error', input.error?.form === form ? input.error.message : undefined)
  const others = input.sessions.filter((s) => !s.current).length
  const othersText =
    others === 0 ? 'No other session is open.' : `${others} other ${others === 1 ? 'session' : 'sessions'}.`
  return html`${notice('success', input.done ? DONE[input.done] : undefined)}
${section(
  'email',
  'Email address',
  input.verified ? emailForm(input, errorIn('email')) : unverifiedEmail(input, errorIn('email')),
)}
${section(
  'password',
  'Password',
  html`${errorIn('password')}<form method="post" action="/portal/account/password" \
class="stacked">${csrfField(input.csrf)}
${passwordInput('current-password', 'current_password', 'Current password')}
${passwordInput('new-password', 'new_password', 'New password', true)}
<div><button type="submit">Change password</button></div></form>`,
)}
${section('two-factor', 'Two-factor log-in', input.twoFactor)}
${section(
  'sessions',
  'Sessions',
  html`${sessionsTable(input.sessions)}
<form method="post" action="/portal/account/sessions/logout-others">${csrfField(input.csrf)}<button type="submit" \
class="secondary">Log out other sessions</button>
<span class="muted">${othersText}</span></form>`,
)}
${section(
  'delete',
  'Delete account',
  input.mayDelete
    ? html`${errorIn('delete')}<p>Every API key of the account is refused from the next request on, and you are logged \
out. Your pets, orders and messages are removed within a day. This cannot be undone; you can sign up again with the \
same address later.</p>
<form method="post" action="/portal/account/delete" class="stacked">${csrfField(input.csrf)}
${passwordInput('delete-password', 'password', 'Current password')}
<div><button type="submit" class="danger">Delete account</button></div></form>`
    : html`<p>Only an owner can delete this account.</p>`,
)}`
}

/** After asking for a change of address: the same page whether or not the address has an account. */
export const emailChangeSent = (newEmail: string, oldEmail: string): Html =>
  html`<p>We sent a message to <strong>${newEmail}</strong>. Your address changes when you open the link in it (it \
works for 24 hours); until then it stays <strong>${oldEmail}</strong>.</p>
<p>We also told ${oldEmail} about this request.</p>
<p class="muted">Nothing arrived? Look in the spam folder; a new link can be asked for once a minute. <a \
href="/portal/account">Back to your account</a></p>`

export const emailChangeConfirm = (csrf: string, token: string, newEmail: string): Html =>
  html`<p>Move your account to <strong>${newEmail}</strong>? From now on you log in with this address, and our mail \
goes to it.</p>
<form method="post" action="/portal/account/email/${token}" class="stacked">${csrfField(csrf)}<div><button \
type="submit">Confirm new address</button></div></form>`
