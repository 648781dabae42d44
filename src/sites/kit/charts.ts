// Bar charts drawn as SVG on the server: one bar per minute or day, its requests stacked by outcome (success at
// the bottom, then client errors, refused by the limit, server errors). The SVG is an image with an accessible
// name (its <title>) and a description with the totals; the numbers themselves are in a table beside it. The
// four colours (assets.ts, `.outcome-*`) are told apart with every kind of colour blindness, and the legend and
// the table name them, so colour is never the only cue.
import type { UsagePoint } from '../../modules/usage/usage.service.js'
import { html, type Html } from './html.js'

/** The outcomes in stacking, legend and column order. */
const OUTCOMES = [
  { field: 'success', css: 'outcome-success', name: 'Success', detail: '2xx, 3xx' },
  { field: 'clientErrors', css: 'outcome-client-error', name: 'Client errors', detail: '4xx' },
  { field: 'refused', css: 'outcome-refused', name: 'Refused by limit', detail: '429' },
  { field: 'serverErrors', css: 'outcome-server-error', name: 'Server errors', detail: '5xx' },
] as const

const WIDTH = 720
const HEIGHT = 180
const LEFT = 44
const BOTTOM = 22
const TOP = 8

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`
const totalOf = (p: UsagePoint) => p.success + p.clientErrors + p.refused + p.serverErrors
const sum = (points: UsagePoint[], field: (typeof OUTCOMES)[number]['field']) =>
  points.reduce((n, p) => n + p[field], 0)

function bars(points: UsagePoint[], max: number): Html[] {
  const plotHeight = HEIGHT - BOTTOM - TOP
  const slot = (WIDTH - LEFT) / Math.max(1, points.length)
  const width = Math.max(1, slot * 0.75).toFixed(1)
  return points.map((p, i) => {
    const x = (LEFT + i * slot + (slot - Number(width)) / 2).toFixed(1)
    let top = HEIGHT - BOTTOM
    return html`${OUTCOMES.map(({ field, css }) => {
      if (p[field] === 0) return ''
      const height = (p[field] / max) * plotHeight
      top -= height
      return html`<rect class="${css}" x="${x}" y="${top.toFixed(1)}" width="${width}" height="${height.toFixed(1)}">\
</rect>`
    })}`
  })
}

function table(points: UsagePoint[], label: (at: string) => string): Html {
  const rows = points.filter((p) => totalOf(p) > 0)
  if (rows.length === 0) return html`<p class="muted">No requests in this period.</p>`
  return html`<table class="usage-numbers"><thead><tr><th scope="col">Time (UTC)</th>${OUTCOMES.map(
    (o) => html`<th scope="col">${o.name} <span class="hint">${o.detail}</span></th>`,
  )}</tr></thead>
<tbody>${rows.map(
    (p) => html`<tr><th \
scope="row">${label(p.at)}</th>${OUTCOMES.map((o) => html`<td>${p[o.field]}</td>`)}</tr>`,
  )}</tbody>
<tfoot><tr><th scope="row">Total</th>${OUTCOMES.map((o) => html`<td>${sum(points, o.field)}</td>`)}</tr></tfoot>\
</table>`
}

export function barChart(input: {
  id: string
  name: string
  caption: string
  points: UsagePoint[]
  label: (at: string) => string
}): Html {
  const { id, points } = input
  const max = Math.max(1, ...points.map(totalOf))
  const first = points[0]
  const last = points.at(-1)
  const axis = html`<line class="axis" x1="${LEFT}" y1="${HEIGHT - BOTTOM}" x2="${WIDTH}" y2="${HEIGHT - BOTTOM}">\
</line>
<text x="${LEFT - 6}" y="${TOP + 10}" text-anchor="end">${max}</text><text x="${LEFT - 6}" y="${HEIGHT - BOTTOM}" \
text-anchor="end">0</text>
${first ? html`<text x="${LEFT}" y="${HEIGHT - 6}">${input.label(first.at)}</text>` : ''}${
  last
    ? html`<text \
x="${WIDTH}" y="${HEIGHT - 6}" text-anchor="end">${input.label(last.at)}</text>`
    : ''
}`
  const [success, clientErrors, refused, serverErrors] = OUTCOMES.map((o) => sum(points, o.field)) as [
    number,
    number,
    number,
    number,
  ]
  // "N admitted, M refused." first: admitted is what the limiter let through (the quota's view of the same requests).
  const description =
    `${input.caption}: ${success + clientErrors + serverErrors} admitted, ${refused} refused. By ` +
    `outcome: ${success} succeeded, ${count(clientErrors, 'client error')} (4xx), ${refused} refused by the ` +
    `limit (429), ${count(serverErrors, 'server error')} (5xx).`
  return html`<figure class="chart">
<figcaption>${input.caption}</figcaption>
<div class="legend" aria-hidden="true">${OUTCOMES.map(
    (o) => html`<span><span class="swatch ${o.css}"></span>${o.name} \
(${o.detail})</span>`,
  )}</div>
<svg role="img" viewBox="0 0 ${WIDTH} ${HEIGHT}" aria-labelledby="${id}-title" aria-describedby="${id}-desc" \
xmlns="http://www.w3.org/2000/svg">
<title id="${id}-title">${input.name}</title><desc id="${id}-desc">${description}</desc>
${axis}${bars(points, max)}</svg>
<details><summary>The numbers</summary>${table(points, input.label)}</details>
</figure>`
}
