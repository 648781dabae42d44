// What every response of a deprecated operation carries: Deprecation (RFC 9745 `@<epoch seconds>`),
// Sunset (RFC 8594 HTTP-date) and a Link with rel="successor-version" to the replacement, GET /v1/pets.
import assert from 'node:assert/strict'
import type { HttpResponse } from './http.js'

export function assertDeprecationHeaders(response: HttpResponse, sunset = 'Thu, 05 Dec 2030 00:00:00 GMT') {
  const what = `${response.statusCode} ${response.body}`
  assert.match(response.headers.deprecation ?? '', /^@\d+$/, `Deprecation on ${what}`)
  assert.equal(response.headers.sunset, sunset, `Sunset on ${what}`)
  const link = response.headers.link ?? ''
  const successor = /<([^>]+)>;\s*rel="successor-version"/.exec(link)
  assert.ok(successor, `Link rel="successor-version" on ${what}: ${link}`)
  assert.equal(new URL(successor[1]!, 'http://x').pathname, '/v1/pets')
}
