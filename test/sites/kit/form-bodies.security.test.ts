// Every POST route of the portal and the console (read from the app's route table) given a body it does not take:
// another media type (JSON, malformed JSON, text, multipart, none) is 415, a malformed or oversized form 400, each
// the site's own HTML error page, never a 5xx, never an error-level log line, counted as a client error.
// Anyone can send these without an account, so a 5xx here would let anyone raise the operators' alerts.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { client, ORIGIN, portalHarness } from '../../helpers/portal.js'
import { parseMetrics } from '../../helpers/prometheus.js'
import { routesWith } from '../../helpers/routes.js'

const FORM = 'application/x-www-form-urlencoded'
const BOUNDARY = 'x-boundary'

/** The bad bodies, each carrying the visitor's valid CSRF token wherever the format can hold it. */
const badBodies = (csrf: string) => [
  { what: 'malformed JSON', type: 'application/json', payload: 'x', status: 415 },
  {
    what: 'a JSON body',
    type: 'application/json',
    payload: JSON.stringify({ _csrf: csrf, email: 'a@example.com', password: 'p' }),
    status: 415,
  },
  { what: 'text/plain', type: 'text/plain', payload: `_csrf=${csrf}&email=a@example.com`, status: 415 },
  {
    what: 'a multipart body',
    type: `multipart/form-data; boundary=${BOUNDARY}`,
    payload: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrf}\r\n--${BOUNDARY}--\r\n`,
    status: 415,
  },
  { what: 'no content type', type: undefined, payload: `_csrf=${csrf}&email=a@example.com`, status: 415 },
  { what: 'a content type that does not parse', type: 'x-www-form-urlencoded', payload: `_csrf=${csrf}`, status: 415 },
  { what: 'an oversized form', type: FORM, payload: `_csrf=${csrf}&name=${'a'.repeat(17 * 1024)}`, status: 400 },
  { what: 'a malformed percent escape', type: FORM, payload: `_csrf=${csrf}&email=%zz`, status: 400 },
  { what: 'a truncated percent escape', type: FORM, payload: `_csrf=${csrf}&email=a%2`, status: 400 },
  { what: 'escapes that are not UTF-8', type: FORM, payload: `_csrf=${csrf}&email=%E0%A4`, status: 400 },
  {
    what: 'raw bytes that are not UTF-8',
    type: FORM,
    payload: Buffer.concat([Buffer.from(`_csrf=${csrf}&email=`), Buffer.from([0xff, 0xfe])]),
    status: 400,
  },
]

/** Requests per route and status of the site's routes, from /metrics. */
async function requestCounts(app: FastifyInstance): Promise<Map<string, number>> {
  const text = (await app.inject({ url: '/metrics' })).body
  const counts = new Map<string, number>()
  for (const s of parseMetrics(text)) {
    if (
      s.name !== 'petstore_http_request_duration_seconds_count' ||
      !/^\/(portal|console)\b/.test(s.labels.route ?? '')
    )
      continue
    counts.set(`${s.labels.method} ${s.labels.route} ${s.labels.status}`, s.value)
  }
  return counts
}

test(
  'every portal and console POST route answers a body it ' +
    'does not take with a 4xx page of its site, no error logged',
  async (t) => {
    const lines: { level: number; msg: string }[] = []
    const stream = { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) }
    const h = await portalHarness(t, { logger: { level: 'info', stream } })
    const sites = [
      { name: 'portal', prefix: '/portal', form: '/portal/login', home: '/portal/keys' },
      { name: 'console', prefix: '/console', form: '/console/login', home: '/console' },
    ]
    let sent = 0
    for (const site of sites) {
      const routes = routesWith(h.app, 'POST', `${site.prefix}/`)
      assert.ok(routes.length >= 8, `${site.name}: only ${routes.length} POST routes found`)
      assert.ok(routes.includes(site.form), `${site.form} is among ${routes.join(', ')}`)
      const c = client(h.app)
      await c.get(site.form)
      const cookie = [...c.jar].map(([k, v]) => `${k}=${v}`).join('; ')
      for (const route of routes) {
        const url = route.replace(/:\w+/g, 'x1')
        for (const body of badBodies(c.csrf)) {
          const response = await h.app.inject({
            method: 'POST',
            url,
            headers: { origin: ORIGIN, cookie, ...(body.type ? { 'content-type': body.type } : {}) },
            payload: body.payload,
          })
          sent++
          const what = `${site.name} POST ${url} with ${body.what}`
          assert.equal(response.statusCode, body.status, `${what}: ${response.body.slice(0, 300)}`)
          assert.match(String(response.headers['content-type']), /^text\/html/, what)
          assert.ok(response.body.includes(`href="${site.home}"`), `${what}: not the ${site.name}'s own page`)
          assert.equal(response.headers['x-frame-options'], 'DENY', what)
        }
      }
    }
    const errors = lines.filter((l) => l.level >= 50)
    assert.deepEqual(
      errors.map((l) => l.msg),
      [],
      'nothing is logged above a warning',
    )
    const counts = await requestCounts(h.app)
    const serverErrors = [...counts].filter(([key]) => /\s5\d\d$/.test(key))
    assert.deepEqual(serverErrors, [], 'no 5xx is counted for a form route')
    const clientErrors = [...counts].filter(([key]) => /^POST .* 4\d\d$/.test(key)).reduce((sum, [, n]) => sum + n, 0)
    assert.equal(clientErrors, sent, 'each is counted as a client error')
  },
)

test(
  "a page's refusals made before its route (a repeated query parameter, " +
    "an address out of requests) are its site's pages, not 500s",
  async (t) => {
    const h = await portalHarness(t, { env: { RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '2' } })
    for (const url of ['/portal/login?next=/a&next=/b', '/console/login?next=/a&next=/b']) {
      const response = await h.app.inject({ url })
      assert.equal(response.statusCode, 400, url)
      assert.match(String(response.headers['content-type']), /^text\/html/, url)
    }
    // Unknown pages count against the client's address (as unknown API paths do): the third is refused.
    for (let i = 0; i < 2; i++) assert.equal((await h.app.inject({ url: '/portal/nothing' })).statusCode, 404)
    const limited = await h.app.inject({ url: '/portal/nothing' })
    assert.equal(limited.statusCode, 429, limited.body.slice(0, 300))
    assert.match(String(limited.headers['content-type']), /^text\/html/)
    assert.ok(Number(limited.headers['retry-after']) > 0)
  },
)
