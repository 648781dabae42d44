// The document frame the portal and the console share: head (stylesheet, script and icon of the site; no inline
// style or script), a skip link, the site header with the brand and the navigation each site passes in, the page's
// own content in <main> under its title, and the footer. Each site's layout.ts fills it in.
import { html, type Html } from './html.js'

export const csrfField = (csrf: string) => html`<input type="hidden" name="_csrf" value="${csrf}">`

/** A notice above a form: an error (`alert`, read out at once) or a confirmation. */
export function notice(kind: 'error' | 'info' | 'success', text: string | Html | undefined): Html {
  if (!text) return html``
  return html`<div class="notice notice-${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</div>`
}

/** One navigation link, marked as the current page when it is. */
export const navLink = (current: string | undefined, href: string, label: string): Html =>
  html`<li><a href="${href}"${current === href ? html` aria-current="page"` : ''}>${label}</a></li>`

/** The signed-in person's address (cut with an ellipsis, whole in its title) and the Log out button. */
export const logoutForm = (action: string, email: string, csrf: string, extra: Html = html``): Html =>
  html`<form method="post" action="${action}" class="logout"><span class="who" \
title="${email}">${email}</span>${extra}${csrfField(csrf)}<button type="submit" class="secondary">Log out</button>\
</form>`

interface DocumentFrame {
  /** Appended to every page title: `Log in · <site>`. */
  site: string
  /** Where the site's assets are served (`/portal/assets`): its `.css`, optional `.js`, and `favicon.svg`. */
  assets: { css: string; js?: string; icon: string }
  brand: { href: string; name: string; tagline: string }
  navigation: Html
  footer: Html
}

export function documentPage(frame: DocumentFrame, title: string, content: Html): string {
  const script =
    frame.assets.js === undefined
      ? html``
      : html`
<script src="${frame.assets.js}" defer></script>`
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${frame.site}</title>
<link rel="stylesheet" href="${frame.assets.css}">${script}
<link rel="icon" type="image/svg+xml" href="${frame.assets.icon}">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site"><a class="brand" href="${frame.brand.href}">${frame.brand.name} \
<span>${frame.brand.tagline}</span></a>${frame.navigation}</header>
<main id="main" tabindex="-1">
<h1>${title}</h1>
${content}
</main>
${frame.footer}
</body>
</html>
`.text
}
