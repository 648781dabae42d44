// The frame of every portal page (src/web/layout.ts): the portal's stylesheet, script and icon, its navigation
// (Keys, Usage, Webhooks where they are on, Activity, Account and Log out when signed in), and a footer pointing to
// the API's documentation.
import { html, type Html } from '../kit/html.js'
import { documentPage, logoutForm, navLink } from '../kit/layout.js'

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
}

function navigation(ctx: PageContext): Html {
  if (!ctx.email)
    return html`<nav aria-label="Portal"><ul><li><a href="/portal/login">Log in</a></li>${
      ctx.signupClosed ? '' : html`<li><a href="/portal/signup">Sign up</a></li>`
    }</ul></nav>`
  const link = (href: string, label: string) => navLink(ctx.path, href, label)
  return html`<nav aria-label="Portal"><ul>${link('/portal/keys', 'Keys')}${link('/portal/usage', 'Usage')}\
${ctx.webhooks ? link('/portal/webhooks', 'Webhooks') : ''}${link('/portal/activity', 'Activity')}\
${link('/portal/account', 'Account')}</ul>
    ${logoutForm('/portal/logout', ctx.email, ctx.csrf)}</nav>`
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
