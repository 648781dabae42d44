// /docs: an HTML reference whose scripts and styles all come from this server (no CDN).
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer, get } from 'node:https'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { test } from 'node:test'
import { tempDir } from '../helpers/cli.js'
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
    assert.ok(
      urls.some((u) => /\.js(\?|$)/.test(u)),
      `no script in ${html}`,
    )
    assert.ok(
      urls.some((u) => /\.css(\?|$)/.test(u)),
      `no stylesheet in ${html}`,
    )
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
  // Its own copy of the document (int64 examples as text, see below): the same operations as /v1/openapi.json.
  assert.match(script, /["']\/docs\/json["']/)
  assert.doesNotMatch(script, /unpkg|jsdelivr|cdnjs|\bcdn\./i, 'the initializer loads something from a CDN')
  const forPage = (await (await fetch(`${h.baseUrl}/docs/json`)).json()) as {
    info: unknown
    paths: Record<string, unknown>
  }
  const document = (await (await fetch(`${h.baseUrl}/v1/openapi.json`)).json()) as typeof forPage
  assert.deepEqual(forPage.info, document.info)
  assert.deepEqual(Object.keys(forPage.paths), Object.keys(document.paths))
})

test('int64 examples are exact in the document and on the docs page (never 9223372036854776000)', async (t) => {
  const h = await startHarness(t, { listen: true })
  const text = await (await fetch(`${h.baseUrl}/v1/openapi.json`)).text()
  assert.match(text, /"categoryId":9223372036854775807[,}]/, 'the document has the exact number')
  assert.doesNotMatch(text, /9223372036854776000|9\.223372036854776e\+?18/)
  // Swagger UI parses with JSON.parse; its copy gives such examples as JSON text, which it shows as is.
  const forPage = await (await fetch(`${h.baseUrl}/docs/json`)).text()
  assert.doesNotMatch(forPage, /9223372036854776000|9\.223372036854776e\+?18/)
  const parsed = JSON.parse(forPage) as { paths: Record<string, any> }
  const example = parsed.paths['/pets/{petId}'].get.responses['200'].content['application/json'].example
  assert.equal(typeof example, 'string')
  assert.match(example, /"categoryId": 9223372036854775807\b/)
  const requestExample = parsed.paths['/pets'].post.requestBody.content['application/json'].example
  assert.match(requestExample, /"categoryId": 9223372036854775807\b/)
})

/** The Content-Security-Policy of the docs pages (a policy only matters on a document), fetched with `get`. */
async function docsPolicies(
  get: (path: string) => Promise<{ status: number; csp: string | undefined }>,
): Promise<string[]> {
  const policies: string[] = []
  for (const path of ['/docs', '/docs/']) {
    const { status, csp } = await get(path)
    assert.equal(status, 200, path)
    assert.ok(csp, `${path} has no Content-Security-Policy`)
    policies.push(csp)
  }
  return policies
}

test(
  'over plain http (a LAN address) the docs CSP keeps ' + 'everything on this server but never upgrades to https',
  async (t) => {
    const h = await startHarness(t, { listen: true })
    const policies = await docsPolicies(async (path) => {
      const res = await fetch(h.baseUrl + path)
      await res.arrayBuffer()
      return { status: res.status, csp: res.headers.get('content-security-policy') ?? undefined }
    })
    for (const csp of policies) {
      assert.doesNotMatch(csp, /upgrade-insecure-requests/)
      assert.match(csp, /default-src 'self';/)
      assert.match(csp, /script-src 'self'/)
      assert.match(csp, /object-src 'none'/)
    }
  },
)

test('over https the docs CSP also says upgrade-insecure-requests', async (t) => {
  const h = await startHarness(t)
  const { dir } = tempDir(t, 'petstore-tls-')
  const [keyFile, certFile] = [join(dir, 'key.pem'), join(dir, 'cert.pem')]
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
    ],
    { stdio: 'ignore' },
  )
  // The same app behind a TLS listener: request.protocol is then https.
  const server = createServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, (req, res) =>
    h.app.routing(req, res),
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const { port } = server.address() as AddressInfo
  const policies = await docsPolicies(
    (path) =>
      new Promise((resolve, reject) => {
        get({ host: '127.0.0.1', port, path, rejectUnauthorized: false }, (res) => {
          res.resume().on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              csp: res.headers['content-security-policy'] as string | undefined,
            }),
          )
        }).on('error', reject)
      }),
  )
  for (const csp of policies) assert.match(csp, /default-src 'self';.* upgrade-insecure-requests;$/)
})

test(
  "no page may frame the docs (they share the console's origin): " + "frame-ancestors 'none' and X-Frame-Options: DENY",
  async (t) => {
    const h = await startHarness(t, { listen: true })
    for (const path of ['/docs', '/docs/', '/docs/static/index.html']) {
      const res = await fetch(h.baseUrl + path, { redirect: 'manual' })
      await res.arrayBuffer()
      assert.equal(res.headers.get('x-frame-options'), 'DENY', path)
      const csp = res.headers.get('content-security-policy')
      if (res.status === 200 && path !== '/docs/static/index.html')
        assert.ok(csp, `${path} has no Content-Security-Policy`)
      if (csp) {
        assert.match(csp, /frame-ancestors 'none'/, path)
        assert.doesNotMatch(csp, /frame-ancestors 'self'/, path)
      }
    }
  },
)
