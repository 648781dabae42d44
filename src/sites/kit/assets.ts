// The portal's static files, served from the package itself (no CDN, no build step): the stylesheet, the one
// script (progressive enhancement: the copy button, forms that continue by themselves, passkeys, which need it),
// and the icon. The passkey ceremony's library (@simplewebauthn/browser) is served beside it (passkey-assets.ts).
// The stylesheet is written for 375 px first: nothing may be wider than the screen (long addresses, key names,
// secrets and code wrap; the header wraps), so no page ever scrolls sideways.

export const PORTAL_CSS = `
:root { --ink: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg: #f6f8fa; --accent: #0b57d0; --accent-ink: #fff;
  --admitted: #0b57d0; --refused: #c5221f; --ok-bg: #e6f4ea; --ok-ink: #0d5224; --err-bg: #fce8e6; --err-ink: #8c1d18; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink);
  background: #fff; }
a { color: var(--accent); }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 1rem; top: 1rem; background: #fff; padding: .5rem 1rem; z-index: 1; }
header.site { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; justify-content: space-between;
  padding: .75rem 1.5rem; border-bottom: 1px solid var(--line); background: var(--bg); }
.brand { font-weight: 700; text-decoration: none; color: var(--ink); }
.brand span { font-weight: 400; color: var(--muted); }
/* The navigation and its log-out form shrink (min-width: 0) and wrap rather than widen the page. */
nav { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center; min-width: 0; max-width: 100%; }
nav ul { display: flex; flex-wrap: wrap; gap: .25rem 1rem; list-style: none; margin: 0; padding: 0; }
nav a[aria-current="page"] { font-weight: 700; text-decoration: none; color: var(--ink); }
.logout { display: flex; gap: .75rem; align-items: center; margin: 0; min-width: 0; max-width: 100%; }
/* An address can be 254 characters: one line, cut with an ellipsis (the whole address is in its title). */
.who { color: var(--muted); font-size: .9rem; min-width: 0; max-width: 22rem; overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; }
.logout button { flex: none; }
/* The portal's account switcher (a member of several accounts): a list as wide as its longest name would widen the
   header, so it is held to 16rem (the whole screen on a phone) and cut there. */
.switcher { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: 0; min-width: 0; max-width: 100%; }
.switcher label { margin: 0; font-weight: 400; font-size: .9rem; color: var(--muted); }
.switcher select { width: auto; min-width: 0; max-width: 16rem; padding: .25rem .4rem; font-size: .9rem;
  text-overflow: ellipsis; }
.switcher button { flex: none; }
main { max-width: 60rem; margin: 0 auto; padding: 1.5rem; overflow-wrap: break-word; }
footer.site { max-width: 60rem; margin: 2rem auto 0; padding: 1rem 1.5rem 2rem; border-top: 1px solid var(--line);
  font-size: .9rem; }
footer.site nav { gap: .25rem 1.5rem; }
footer.site .product { font-weight: 600; }
main:focus { outline: none; }
h1 { font-size: 1.75rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 .75rem; }
form.stacked { display: grid; gap: 1rem; max-width: 26rem; }
label { display: block; font-weight: 600; margin-bottom: .25rem; }
.hint { display: block; font-weight: 400; color: var(--muted); font-size: .9rem; }
input[type=email], input[type=password], input[type=text], input[type=number], select, textarea { width: 100%;
  padding: .55rem .65rem; font: inherit; border: 1px solid #8c959f; border-radius: 6px; background: #fff; }
button, .button { display: inline-block; padding: .5rem 1rem; font: inherit; font-weight: 600; border-radius: 6px;
  border: 1px solid var(--accent); background: var(--accent); color: var(--accent-ink); cursor: pointer;
  text-decoration: none; }
button.secondary, .button.secondary { background: #fff; color: var(--accent); }
button.danger { background: var(--refused); border-color: var(--refused); color: #fff; }
button.small { padding: .25rem .65rem; font-size: .9rem; }
:focus-visible { outline: 3px solid #f9ab00; outline-offset: 2px; }
.notice { padding: .75rem 1rem; border-radius: 6px; margin: 0 0 1rem; max-width: 40rem; }
.notice-error { background: var(--err-bg); color: var(--err-ink); }
.notice-success, .notice-info { background: var(--ok-bg); color: var(--ok-ink); }
table { border-collapse: collapse; width: 100%; margin: .5rem 0 1rem; }
th, td { text-align: left; padding: .5rem .6rem; border-bottom: 1px solid var(--line); vertical-align: middle; }
thead th { font-size: .85rem; color: var(--muted); font-weight: 600; }
tbody th { font-weight: 600; }
caption { text-align: left; padding: 0 0 .5rem; }
td.when { white-space: nowrap; }
td.actions { white-space: nowrap; }
td.actions form { display: inline; margin: 0 .25rem 0 0; }
/* A select in a row's actions (a member's role) is as wide as its choices, as small as the buttons beside it. */
td.actions select { width: auto; max-width: 100%; padding: .25rem .4rem; font-size: .9rem; }
code, pre, .secret { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9rem; }
/* Code wraps inside its own box (a scrolling box would need to be focusable); copying still gets the text as is. */
pre { white-space: pre-wrap; overflow-wrap: anywhere; max-width: 100%; margin: .5rem 0 1rem; padding: .75rem 1rem;
  border: 1px solid var(--line); border-radius: 6px; background: var(--bg); }
pre code { font-size: inherit; }
.secret-box { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; padding: 1rem;
  border: 1px solid var(--line); border-radius: 6px; background: var(--bg); max-width: 44rem; }
.secret { word-break: break-all; }
.state-active { color: var(--ok-ink); font-weight: 600; }
.state-expired, .state-revoked { color: var(--muted); }
.state-suspended { color: var(--err-ink); font-weight: 600; }
/* A key's permissions (portal/key-scopes.pages.ts): a checkbox per scope, its code and what it allows on one line. */
fieldset.permissions { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .9rem .75rem; margin: 0; }
fieldset.permissions legend { font-weight: 600; padding: 0 .25rem; }
label.check { display: flex; flex-wrap: wrap; gap: .25rem .5rem; align-items: baseline; font-weight: 400;
  margin: .45rem 0 0; }
label.check .hint { flex-basis: 100%; margin-left: 1.6rem; }
.row-actions { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; margin-top: 1rem; }
.muted { color: var(--muted); }
.figures { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(14rem, 100%), 1fr)); gap: 1rem;
  margin: 1rem 0; }
.figure { border: 1px solid var(--line); border-radius: 6px; padding: .75rem 1rem; }
.figure .value { font-size: 1.5rem; font-weight: 700; }
figure.chart { margin: 1rem 0 2rem; }
figure.chart svg { width: 100%; height: auto; display: block; }
figure.chart figcaption { font-weight: 600; margin-bottom: .25rem; }
.legend { display: flex; gap: 1.25rem; font-size: .9rem; color: var(--muted); margin: .25rem 0; }
.swatch { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px; margin-right: .35rem;
  vertical-align: -1px; }
.swatch.admitted { background: var(--admitted); }
.swatch.refused { background: var(--refused); }
svg .admitted { fill: var(--admitted); }
svg .refused { fill: var(--refused); }
svg .axis { stroke: var(--line); }
svg text { fill: var(--muted); font-size: 11px; font-family: inherit; }
details { margin: .25rem 0 1rem; }
.inline-form { display: flex; flex-wrap: wrap; gap: .75rem; align-items: end; margin: 0 0 1rem; }
.inline-form > * { min-width: 0; max-width: 100%; }
.inline-form select { width: auto; max-width: 100%; }
/* A phone: less padding, a smaller title, and data cells that wrap anywhere rather than widen the page (headers keep
   their words whole). */
@media (max-width: 40rem) {
  header.site { padding: .75rem 1rem; }
  main { padding: 1rem; }
  footer.site { padding: 1rem 1rem 1.5rem; margin-top: 1rem; }
  h1 { font-size: 1.5rem; }
  .who { max-width: 100%; }
  .switcher select { flex: 1 1 0; max-width: 100%; }
  th, td { padding: .4rem; }
  td { overflow-wrap: anywhere; }
  td.when { white-space: normal; }
}
/* Usage by outcome (charts.ts): Okabe-Ito colours, told apart with every kind of colour blindness and each at
   least 3:1 against white; a white edge between stacked parts. The legend wraps on a phone. */
.outcome-success { --outcome: #0072b2; }
.outcome-client-error { --outcome: #d55e00; }
.outcome-refused { --outcome: #cc79a7; }
.outcome-server-error { --outcome: #1b1f24; }
.swatch[class*="outcome-"] { background: var(--outcome); }
svg rect[class*="outcome-"] { fill: var(--outcome); stroke: #fff; stroke-width: .5; }
.legend { flex-wrap: wrap; gap: .25rem 1.25rem; }
table.usage-numbers th, table.usage-numbers td { padding: .4rem .5rem; }
table.usage-numbers td { font-variant-numeric: tabular-nums; }
table.usage-numbers tbody th, table.usage-numbers tfoot th { white-space: nowrap; }
@media (max-width: 40rem) { figure.chart svg text { font-size: 20px; }
  table.usage-numbers th, table.usage-numbers td { padding: .4rem .25rem; } }
/* Keys (keys.pages.ts, new-key.pages.ts): names wrap anywhere (a 100-character name without spaces too); the
   snippets wrap instead of scrolling; a rolled key reads apart from an active one. Below 40rem the keys table
   becomes one card per key, each cell labelled from its data-label (the column headers stay for screen readers). */
.key-name { overflow-wrap: anywhere; }
.copyable { max-width: 44rem; margin: 0 0 1rem; }
.copy-label { margin: 0 0 .25rem; font-weight: 600; }
pre.snippet { margin: 0 0 .5rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.secret { overflow-wrap: anywhere; min-width: 0; }
.state-rolled { color: #7a4b00; font-weight: 600; }
table.keys th.key-name { min-width: 10rem; }
/* Dates may break between day and time, so seven columns and a long name fit 60rem. */
table.keys td.when { white-space: normal; }
table.keys .day, table.keys .time { white-space: nowrap; }
@media (max-width: 40rem) {
  table.keys caption { display: block; }
  table.keys thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%);
    white-space: nowrap; }
  table.keys, table.keys tbody, table.keys tr, table.keys th.key-name, table.keys td { display: block; width: auto; }
  table.keys tr { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; margin: 0 0 1rem; }
  table.keys th.key-name, table.keys td { border: 0; padding: .15rem 0; min-width: 0; }
  table.keys th.key-name { font-size: 1.05rem; }
  table.keys td.when { white-space: normal; }
  table.keys td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); font-weight: 600; }
  table.keys td.actions { padding-top: .5rem; }
  table.keys td.actions:empty { display: none; }
}
/* Tables of records (sessions, activity, plan requests: class "cards"): below 40rem one card per row, each cell
   labelled from its data-label (the column headers stay for screen readers), as the keys table does. */
@media (max-width: 40rem) {
  table.cards thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%);
    white-space: nowrap; }
  table.cards, table.cards caption, table.cards tbody, table.cards tr, table.cards th, table.cards td { display: block;
    width: auto; }
  table.cards tr { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; margin: 0 0 1rem; }
  table.cards tbody th, table.cards td { border: 0; padding: .15rem 0; white-space: normal; }
  table.cards td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); font-weight: 600; }
}
/* Account settings (settings.pages.ts): the session of this browser is tagged. */
.tag { display: inline-block; margin-left: .35rem; padding: 0 .5rem; border-radius: 999px; background: var(--ok-bg);
  color: var(--ok-ink); font-size: .8rem; font-weight: 600; }
table.sessions td { white-space: nowrap; }
/* Activity (activity.pages.ts): details wrap anywhere. */
table.activity td.details { overflow-wrap: anywhere; }
/* Second factors (two-factor.pages.ts, sudo.pages.ts; the console's setup too): the QR code (SVG drawn on the
   server) at a scannable size, never wider than the page; the app's secret breaks between its groups of four. */
.qr { display: block; width: 14rem; max-width: 100%; height: auto; background: #fff; padding: .5rem;
  border: 1px solid var(--line); border-radius: 6px; }
.qr svg { display: block; width: 100%; height: auto; }
#totp-secret { word-break: normal; }
/* Two ways to answer one question, one form each (a passkey, a code): apart, not run together. */
form.stacked + form.stacked { margin-top: 1.5rem; }
/* Text for screen readers only (a column header over buttons). */
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%);
  white-space: nowrap; }
`

/**
 * The console's stylesheet: the portal's, and what only console pages have (served at /console/assets/console.css).
 * Console pages may add their rules to CONSOLE_ONLY_CSS.
 */
const CONSOLE_ONLY_CSS = `
/* Operators read wide tables (the audit log's changes, search results, plan requests) on desktops: more room. */
main, footer.site { max-width: 80rem; }
/* Ids and times may break anywhere in the audit log, so that its Changes column is on screen, not scrolled away. */
table.audit td { overflow-wrap: anywhere; }
/* The console's header reads apart from the portal's: a dark bar. */
header.site:has(nav[aria-label="Console"]) { background: #1b1f24; border-bottom-color: #1b1f24; }
header.site:has(nav[aria-label="Console"]) .brand, header.site:has(nav[aria-label="Console"]) nav a { color: #fff; }
header.site:has(nav[aria-label="Console"]) .brand span, header.site:has(nav[aria-label="Console"]) .who {
  color: #c9d1d9; }
header.site:has(nav[aria-label="Console"]) nav a[aria-current="page"] { color: #fff; text-decoration: underline;
  text-underline-offset: .3em; }
header.site:has(nav[aria-label="Console"]) button.secondary { background: #1b1f24; color: #fff; border-color: #fff; }
.role { display: inline-block; padding: 0 .5rem; border-radius: 999px; background: #c9d1d9; color: #1b1f24;
  font-size: .8rem; font-weight: 600; }
/* Setup: the URI as text, the recovery codes (the QR code's rule is the portal's). */
.otpauth-uri { overflow-wrap: anywhere; }
ol.recovery-codes { columns: 2; max-width: 26rem; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 1rem; }
@media (max-width: 40rem) { ol.recovery-codes { columns: 1; } }
/* Plan requests (requests.pages.ts): an integrator's note wraps anywhere (1,000 characters, maybe without spaces). */
table.requests td.note { overflow-wrap: anywhere; min-width: 12rem; }
/* What asks for a second look (an unverified owner, a new account): a word, coloured only as a help. */
.tag.caution { background: var(--err-bg); color: var(--err-ink); }
blockquote.note { margin: .25rem 0 1rem; padding: .5rem 1rem; border-left: 3px solid var(--line);
  overflow-wrap: anywhere; }
/* Wide tables (search results, the audit log) scroll sideways in their own box, never the page; the box takes the
   keyboard's focus so that it can be scrolled without a mouse. */
.table-scroll { overflow-x: auto; max-width: 100%; margin: .5rem 0 1rem; }
.table-scroll > table { margin: 0; }
ul.changes { margin: 0; padding-left: 1rem; }
table.audit td, table.search-results td { min-width: 6rem; }
/* The search form: its hint sits under its label, as the other forms' hints do, and the button is as wide as
   its word. */
form.search-form { gap: .25rem; }
form.search-form .hint { margin: 0 0 .5rem; }
form.search-form button { justify-self: start; margin-top: .5rem; }
`

export const CONSOLE_CSS = PORTAL_CSS + CONSOLE_ONLY_CSS

export const PORTAL_JS = `'use strict'
// Copy buttons: shown only when this script runs (without it, the secret is selectable text).
for (const button of document.querySelectorAll('button[data-copy]')) {
  const source = document.getElementById(button.dataset.copy)
  const status = document.getElementById(button.dataset.status)
  button.hidden = false
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(source.textContent.trim())
      if (status) status.textContent = 'Copied to the clipboard.'
    } catch {
      if (status) status.textContent = 'Copying failed: select the key and copy it.'
    }
  })
}
// Forms that continue by themselves (the action kept across a confirmation): sent once, as soon as they load.
for (const form of document.querySelectorAll('form[data-autosubmit]')) form.requestSubmit()
// Passkeys (WebAuthn): a form with data-passkey asks the server for options, runs the browser's ceremony
// (@simplewebauthn/browser, served from our origin), and sends its answer in the form's "response" field.
const passkeyForms = document.querySelectorAll('form[data-passkey]')
if (passkeyForms.length > 0 && window.PublicKeyCredential) {
  for (const shown of document.querySelectorAll('[data-passkey-only]')) shown.hidden = false
  const library = new Promise((resolve, reject) => {
    const script = document.createElement('script')
    script.src = '/portal/assets/webauthn.js'
    script.onload = () => resolve(window.SimpleWebAuthnBrowser)
    script.onerror = reject
    document.head.append(script)
  })
  for (const form of passkeyForms) {
    const status = form.querySelector('[data-passkey-status]')
    form.addEventListener('submit', async (event) => {
      if (form.elements.response.value !== '') return
      event.preventDefault()
      if (status) status.textContent = 'Waiting for your passkey…'
      try {
        const body = new URLSearchParams({ _csrf: form.elements._csrf.value, purpose: form.dataset.passkey })
        const answer = await fetch(form.dataset.options, { method: 'POST', body, credentials: 'same-origin' })
        // Not options (a confirmation is needed first, or the session ended): the form goes as it is.
        if (!answer.ok || !answer.headers.get('content-type')?.startsWith('application/json')) return form.submit()
        const optionsJSON = await answer.json()
        const webauthn = await library
        const result = form.dataset.passkey === 'register'
          ? await webauthn.startRegistration({ optionsJSON })
          : await webauthn.startAuthentication({ optionsJSON })
        form.elements.response.value = JSON.stringify(result)
        form.submit()
      } catch (error) {
        const why = error && error.name ? error.name : 'error'
        if (status) status.textContent = 'No passkey was used (' + why + '). Try again.'
      }
    })
  }
}
`

/** The tab icon: a white paw on the portal's blue, drawn in SVG (served from our origin: the CSP's img-src 'self'). */
export const PORTAL_FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="7" fill="#0b57d0"/>
<g fill="#fff"><ellipse cx="16" cy="21.5" rx="6.5" ry="5.5"/><circle cx="7.5" cy="13.5" r="2.9"/>\
<circle cx="12.5" cy="8" r="2.9"/><circle cx="19.5" cy="8" r="2.9"/><circle cx="24.5" cy="13.5" r="2.9"/></g>
</svg>
`
