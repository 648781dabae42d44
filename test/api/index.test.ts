// GET / and GET /v1: a small JSON index instead of a 404, without a key, limited per address like /v1/openapi.json.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { startHarness } from '../helpers/harness.js'
import { repoRoot } from '../helpers/root.js'

const pkg = JSON.parse(readFileSync(new URL('package.json', repoRoot), 'utf8')) as { name: string; version: string }

for (const url of ['/', '/v1']) {
  test(`GET ${url} (no key) is the index: name, version and links that answer`, async (t) => {
    const h = await startHarness(t)
    const res = await h.app.inject({ method: 'GET', url })
    assert.equal(res.statusCode, 200)
    assert.match(String(res.headers['content-type']), /^application\/json/)
    assert.deepEqual(res.json(), {
      name: pkg.name,
      version: pkg.version,
      links: { openapi: '/v1/openapi.json', docs: '/docs' },
    })
    for (const link of Object.values(res.json().links as Record<string, string>)) {
      assert.equal((await h.app.inject({ method: 'GET', url: link })).statusCode, 200, link)
    }
  })

  test(`GET ${url} counts against the client address, like /v1/openapi.json`, async (t) => {
    const h = await startHarness(t, { env: { RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '3' } })
    const first = await h.app.inject({ method: 'GET', url })
    assert.equal(first.headers['x-ratelimit-limit'], '3')
    assert.equal(first.headers['x-ratelimit-remaining'], '2')
    await h.app.inject({ method: 'GET', url: '/v1/openapi.json' })
    await h.app.inject({ method: 'GET', url })
    const refused = await h.app.inject({ method: 'GET', url })
    assert.equal(refused.statusCode, 429)
    assert.equal(refused.json().code, 'rate_limit_exceeded')
    assert.ok(Number(refused.headers['retry-after']) >= 1)
  })
}

test('the index is not in the OpenAPI document (it is not an operation of the API)', async (t) => {
  const h = await startHarness(t)
  const doc = (await h.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as {
    paths: Record<string, unknown>
  }
  assert.deepEqual(
    Object.keys(doc.paths).filter((p) => p === '/' || p === '/v1'),
    [],
  )
})
