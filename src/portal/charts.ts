// Bar charts drawn as SVG on the server: one bar per minute or day, admitted (bottom) and refused (on top)
// apart. The SVG is an image with an accessible name (its <title>) and a description with the totals; the
// numbers themselves are in a table beside it.
import { html, type Html } from './html.js'

export interface UsagePoint {
  at: string
  admitted: number
  refused: number
}

const WIDTH = 720
const HEIGHT = 180
const LEFT = 44
const BOTTOM = 22
const TOP = 8

export function barChart(input: { id: string; name: string; caption: string; points: UsagePoint[]; label: (at: string) => string }): Html {
  const { id, points } = input
  const max = Math.max(1, ...points.map((p) => p.admitted + p.refused))
  const plotHeight = HEIGHT - BOTTOM - TOP
  const slot = (WIDTH - LEFT) / Math.max(1, points.length)
  const barWidth = Math.max(1, slot * 0.75)
  const y = (value: number) => (value / max) * plotHeight
  const bars = points.map((p, i) => {
    const x = (LEFT + i * slot + (slot - barWidth) / 2).toFixed(1)
    const admitted = y(p.admitted)
    const refused = y(p.refused)
    const base = HEIGHT - BOTTOM
    return html`${p.admitted > 0 ? html`<rect class="admitted" x="${x}" y="${(base - admitted).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${admitted.toFixed(1)}"></rect>` : ''}${
      p.refused > 0 ? html`<rect class="refused" x="${x}" y="${(base - admitted - refused).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${refused.toFixed(1)}"></rect>` : ''
    }`
  })
  const admitted = points.reduce((n, p) => n + p.admitted, 0)
  const refused = points.reduce((n, p) => n + p.refused, 0)
  const first = points[0]
  const last = points.at(-1)
  const axis = html`<line class="axis" x1="${LEFT}" y1="${HEIGHT - BOTTOM}" x2="${WIDTH}" y2="${HEIGHT - BOTTOM}"></line>
<text x="${LEFT - 6}" y="${TOP + 10}" text-anchor="end">${max}</text><text x="${LEFT - 6}" y="${HEIGHT - BOTTOM}" text-anchor="end">0</text>
${first ? html`<text x="${LEFT}" y="${HEIGHT - 6}">${input.label(first.at)}</text>` : ''}${last ? html`<text x="${WIDTH}" y="${HEIGHT - 6}" text-anchor="end">${input.label(last.at)}</text>` : ''}`
  const rows = points.filter((p) => p.admitted + p.refused > 0).map((p) => html`<tr><td>${input.label(p.at)}</td><td>${p.admitted}</td><td>${p.refused}</td></tr>`)
  return html`<figure class="chart">
<figcaption>${input.caption}</figcaption>
<div class="legend" aria-hidden="true"><span><span class="swatch admitted"></span>Admitted</span><span><span class="swatch refused"></span>Refused (429)</span></div>
<svg role="img" viewBox="0 0 ${WIDTH} ${HEIGHT}" aria-labelledby="${id}-title" aria-describedby="${id}-desc" xmlns="http://www.w3.org/2000/svg">
<title id="${id}-title">${input.name}</title><desc id="${id}-desc">${input.caption}: ${admitted} admitted, ${refused} refused.</desc>
${axis}${bars}</svg>
<details><summary>The numbers</summary>${rows.length === 0 ? html`<p class="muted">No requests in this period.</p>` : html`<table><thead><tr><th scope="col">Time (UTC)</th><th scope="col">Admitted</th><th scope="col">Refused</th></tr></thead><tbody>${rows}</tbody></table>`}</details>
</figure>`
}
