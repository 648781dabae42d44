// The portal's two static files, served from the package itself (no CDN, no build step): the stylesheet, and
// the one script (progressive enhancement: the copy button; every form works without it).

export const PORTAL_CSS = `
:root { --ink: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg: #f6f8fa; --accent: #0b57d0; --accent-ink: #fff;
  --admitted: #0b57d0; --refused: #c5221f; --ok-bg: #e6f4ea; --ok-ink: #0d5224; --err-bg: #fce8e6; --err-ink: #8c1d18; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #fff; }
a { color: var(--accent); }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 1rem; top: 1rem; background: #fff; padding: .5rem 1rem; z-index: 1; }
header.site { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; justify-content: space-between; padding: .75rem 1.5rem; border-bottom: 1px solid var(--line); background: var(--bg); }
.brand { font-weight: 700; text-decoration: none; color: var(--ink); }
.brand span { font-weight: 400; color: var(--muted); }
nav { display: flex; gap: 1.5rem; align-items: center; }
nav ul { display: flex; gap: 1rem; list-style: none; margin: 0; padding: 0; }
nav a[aria-current="page"] { font-weight: 700; text-decoration: none; color: var(--ink); }
.logout { display: flex; gap: .75rem; align-items: center; margin: 0; }
.who { color: var(--muted); font-size: .9rem; }
main { max-width: 60rem; margin: 0 auto; padding: 1.5rem; }
main:focus { outline: none; }
h1 { font-size: 1.75rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 .75rem; }
form.stacked { display: grid; gap: 1rem; max-width: 26rem; }
label { display: block; font-weight: 600; margin-bottom: .25rem; }
.hint { display: block; font-weight: 400; color: var(--muted); font-size: .9rem; }
input[type=email], input[type=password], input[type=text], select { width: 100%; padding: .55rem .65rem; font: inherit; border: 1px solid #8c959f; border-radius: 6px; background: #fff; }
button, .button { display: inline-block; padding: .5rem 1rem; font: inherit; font-weight: 600; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: var(--accent-ink); cursor: pointer; text-decoration: none; }
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
code, .secret { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9rem; }
.secret-box { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; padding: 1rem; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); max-width: 44rem; }
.secret { word-break: break-all; }
.state-active { color: var(--ok-ink); font-weight: 600; }
.state-expired, .state-revoked { color: var(--muted); }
.row-actions { display: flex; gap: .75rem; align-items: center; margin-top: 1rem; }
.muted { color: var(--muted); }
.figures { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: 1rem; margin: 1rem 0; }
.figure { border: 1px solid var(--line); border-radius: 6px; padding: .75rem 1rem; }
.figure .value { font-size: 1.5rem; font-weight: 700; }
figure.chart { margin: 1rem 0 2rem; }
figure.chart svg { width: 100%; height: auto; display: block; }
figure.chart figcaption { font-weight: 600; margin-bottom: .25rem; }
.legend { display: flex; gap: 1.25rem; font-size: .9rem; color: var(--muted); margin: .25rem 0; }
.swatch { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px; margin-right: .35rem; vertical-align: -1px; }
.swatch.admitted { background: var(--admitted); }
.swatch.refused { background: var(--refused); }
svg .admitted { fill: var(--admitted); }
svg .refused { fill: var(--refused); }
svg .axis { stroke: var(--line); }
svg text { fill: var(--muted); font-size: 11px; font-family: inherit; }
details { margin: .25rem 0 1rem; }
.inline-form { display: flex; flex-wrap: wrap; gap: .75rem; align-items: end; margin: 0 0 1rem; }
.inline-form select { width: auto; }
`

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
`
