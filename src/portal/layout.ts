// The frame of every portal page: document head (our stylesheet, script and icon; no inline style or script), a
// skip link, the site header with the product's name and the navigation, the page's own content in <main>, and a
// footer pointing to the API's documentation.
import { html, type Html } from './html.js'

export interface PageContext {
  /** The signed-in user's address, if any (shows the navigation and Log out). */
  email?: string
  /** The CSRF token of this visitor (every form that changes something carries it). */
  csrf: string
  /** Path of the current page, to mark its navigation link. */
  path?: string
}

export const csrfField = (csrf: string) => html`<input type="hidden" name="_csrf" value="${csrf}">`

/** A notice above a form: an error (`alert`, read out at once) or a confirmation. */
export function notice(kind: 'error' | 'info' | 'success', text: string | Html | undefined): Html {
  if (!text) return html``
  return html`<div class="notice notice-${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</div>`
}

function navigation(ctx: PageContext): Html {
  if (!ctx.email) return html`<nav aria-label="Portal"><ul><li><a href="/portal/login">Log in</a></li><li><a href="/portal/signup">Sign up</a></li></ul></nav>`
  const link = (href: string, label: string) => html`<li><a href="${href}"${ctx.path === href ? html` aria-current="page"` : ''}>${label}</a></li>`
  return html`<nav aria-label="Portal"><ul>${link('/portal/keys', 'Keys')}${link('/portal/usage', 'Usage')}${link('/portal/account', 'Account')}</ul>
    <form method="post" action="/portal/logout" class="logout"><span class="who" title="${ctx.email}">${ctx.email}</span>${csrfField(ctx.csrf)}<button type="submit" class="secondary">Log out</button></form></nav>`
}

// The API's own documents, for integrators: the same links GET /v1 lists (src/app.ts registers both).
const footer = html`<footer class="site"><nav aria-label="API documentation"><span class="product">Petstore API</span><ul>
<li><a href="/docs">API reference</a></li><li><a href="/v1/openapi.json">OpenAPI document</a> <span class="muted">(JSON)</span></li></ul></nav></footer>`

export function page(ctx: PageContext, title: string, content: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Petstore developer portal</title>
<link rel="stylesheet" href="/portal/assets/portal.css">
<script src="/portal/assets/portal.js" defer></script>
<link rel="icon" type="image/svg+xml" href="/portal/assets/favicon.svg">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site"><a class="brand" href="/portal/keys">Petstore <span>developer portal</span></a>${navigation(ctx)}</header>
<main id="main" tabindex="-1">
<h1>${title}</h1>
${content}
</main>
${footer}
</body>
</html>
`.text
}
