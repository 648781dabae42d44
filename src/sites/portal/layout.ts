// The frame of every portal page (src/web/layout.ts): the portal's stylesheet, script and icon, its navigation
// (Keys, Usage, Webhooks where they are on, Activity, Members, Account and Log out when signed in; the account
// switcher for a member of several accounts), and a footer pointing to the API's documentation.
import { html, type Html } from '../kit/html.js'
import { csrfField, documentPage, logoutForm, navLink } from '../kit/layout.js'

export { csrfField, notice } from '../kit/layout.js'

export interface PageContext {
  /** The signed-in user's address, if any (shows the navigation and Log out). */
  email?: string
  /** The CSRF token of this visitor (every form that changes something carries it). */
  csrf: string
  /** Path of the current page, to mark its navigation link. */
  path?: string
  /** PORTAL_SIGNUP=closed: no Sign up link (operators make accounts). */
  signupClosed?: boolean
  /** WEBHOOKS=on: the navigation links the webhooks page. */
  webhooks?: boolean
  /** The visitor is a member of an account: the navigation links its members' page. */
  members?: boolean
  /** The accounts the visitor is a member of, when more than one (account-switcher.ts): the switcher shows. */
  accounts?: AccountChoice[]
}

/** One of the visitor's accounts, in the switcher. */
export interface AccountChoice {
  id: string
  name: string
  /** The visitor's role there, in words ("Viewer"). */
  role: string
  /** The account this page works in. */
  current: boolean
}

/**
 * The account this page works in, and a form that switches to another (POST /portal/members/switch): only for a
 * member of more than one account. The list shows the current account chosen; without JavaScript: choose, then
 * press Switch.
 */
function accountSwitcher(ctx: PageContext): Html {
  const choices = ctx.accounts ?? []
  if (choices.length < 2 || !choices.some((c) => c.current)) return html``
  return html`<form method="post" action="/portal/members/switch" class="switcher">${csrfField(ctx.csrf)}<label \
for="switch-account">Account</label><select id="switch-account" name="account">${choices.map(
    (c) => html`<option value="${c.id}"${c.current ? html` selected` : ''}>${c.name} (${c.role})</option>`,
  )}</select><button type="submit" class="secondary small">Switch</button></form>`
}

function navigation(ctx: PageContext): Html {
  if (!ctx.email)
    return html`<nav aria-label="Portal"><ul><li><a href="/portal/login">Log in</a></li>${
      ctx.signupClosed ? '' : html`<li><a href="/portal/signup">Sign up</a></li>`
    }</ul></nav>`
  const link = (href: string, label: string) => navLink(ctx.path, href, label)
  return html`<nav aria-label="Portal"><ul>${link('/portal/keys', 'Keys')}${link('/portal/usage', 'Usage')}\
${ctx.webhooks ? link('/portal/webhooks', 'Webhooks') : ''}${link('/portal/activity', 'Activity')}\
${ctx.members ? link('/portal/members', 'Members') : ''}${link('/portal/account', 'Account')}</ul>
    ${accountSwitcher(ctx)}${logoutForm('/portal/logout', ctx.email, ctx.csrf)}</nav>`
}

// The API's own documents, for integrators: the same links GET /v1 lists (src/app.ts registers both).
const footer = html`<footer class="site"><nav aria-label="API documentation"><span class="product">Petstore API</span>\
<ul>
<li><a href="/docs">API reference</a></li><li><a href="/v1/openapi.json">OpenAPI document</a> <span \
class="muted">(JSON)</span></li></ul></nav></footer>`

const assets = { css: '/portal/assets/portal.css', js: '/portal/assets/portal.js', icon: '/portal/assets/favicon.svg' }
const brand = { href: '/portal/keys', name: 'Petstore', tagline: 'developer portal' }

export function page(ctx: PageContext, title: string, content: Html): string {
  return documentPage(
    { site: 'Petstore developer portal', assets, brand, navigation: navigation(ctx), footer },
    title,
    content,
  )
}
