// /docs: an HTML reference whose scripts and styles all come from this server (no CDN).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startHarness } from '../helpers/harness.js'

/** The URLs of every src= and href= attribute in the page. */
function referencedUrls(html: string): string[] {
  return [...html.matchAll(/\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]!)
}

for (const page of ['/docs', '/docs/']) {
  test(`GET ${page} is HTML whose every script and stylesheet is served by us`, async (t) => {
    const h = await startHarness(t, { listen: true })
    const res = await fetch(h.baseUrl + page)
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/)
    const html = await res.text()
    const urls = referencedUrls(html)
    assert.ok(urls.some((u) => /\.js(\?|$)/.test(u)), `no script in ${html}`)
    assert.ok(urls.some((u) => /\.css(\?|$)/.test(u)), `no stylesheet in ${html}`)
    for (const url of urls) {
      const absolute = new URL(url, res.url)
      assert.equal(absolute.origin, h.baseUrl, `${url} points outside this server`)
      const asset = await fetch(absolute)
      assert.equal(asset.status, 200, `${absolute.href}`)
      assert.ok((await asset.arrayBuffer()).byteLength > 0, `${absolute.href} is empty`)
    }
  })
}

test('the docs page loads our own OpenAPI document', async (t) => {
  const h = await startHarness(t, { listen: true })
  const page = await (await fetch(`${h.baseUrl}/docs`)).text()
  const initializer = referencedUrls(page).find((u) => u.includes('initializer'))
  assert.ok(initializer, page)
  const script = await (await fetch(new URL(initializer, `${h.baseUrl}/docs`))).text()
  assert.match(script, /\/v1\/openapi\.json/)
  assert.doesNotMatch(script, /unpkg|jsdelivr|cdnjs|\bcdn\./i, 'the initializer loads something from a CDN')
})
