// The frame of every console page (src/web/layout.ts): the console's stylesheet and icon, its navigation
// (Overview, Accounts, Plan requests, Audit log; Operators for admins) and the signed-in operator's email, role
// and Log out.
import type { Operator } from '../../modules/operators/operator.js'
import { html, type Html } from '../kit/html.js'
import { documentPage, logoutForm, navLink } from '../kit/layout.js'

export { csrfField, notice } from '../kit/layout.js'

export interface ConsolePageContext {
  /** The signed-in operator, if any (shows the navigation and Log out; its role decides which controls show). */
  operator?: Operator
  /** The CSRF token of this visitor (every form that changes something carries it). */
  csrf: string
  /** Path of the current page, to mark its navigation link. */
  path?: string
}

/** Whether the page may show admin controls (the server checks again on every POST: c.require). */
export const isAdmin = (ctx: ConsolePageContext): boolean => ctx.operator?.role === 'admin'

const SECTIONS: [string, string][] = [
  ['/console', 'Overview'],
  ['/console/accounts', 'Accounts'],
  ['/console/requests', 'Plan requests'],
  ['/console/audit', 'Audit log'],
]
/** Sections only admins may open (the server refuses the others with 403). */
const ADMIN_SECTIONS: [string, string][] = [['/console/operators', 'Operators']]

function navigation(ctx: ConsolePageContext): Html {
  const operator = ctx.operator
  if (!operator) return html`<nav aria-label="Console"><ul><li><a href="/console/login">Log in</a></li></ul></nav>`
  const sections = operator.role === 'admin' ? [...SECTIONS, ...ADMIN_SECTIONS] : SECTIONS
  // A section stays marked on its sub-pages (an account page is under Accounts).
  const current = sections
    .map(([href]) => href)
    .findLast((href) => ctx.path === href || (href !== '/console' && ctx.path?.startsWith(`${href}/`)))
  const links = sections.map(([href, label]) => navLink(current, href, label))
  return html`<nav aria-label="Console"><ul>${links}</ul>
    ${logoutForm('/console/logout', operator.email, ctx.csrf, html`<span class="role">${operator.role}</span>`)}</nav>`
}

const footer = html`<footer class="site"><p class="muted">Petstore operator console. Every change made here is \
recorded in the audit log with your email and address.</p></footer>`

const assets = { css: '/console/assets/console.css', icon: '/console/assets/favicon.svg' }
const brand = { href: '/console', name: 'Petstore', tagline: 'operator console' }

export function consolePage(ctx: ConsolePageContext, title: string, content: Html): string {
  return documentPage(
    { site: 'Petstore operator console', assets, brand, navigation: navigation(ctx), footer },
    title,
    content,
  )
}
