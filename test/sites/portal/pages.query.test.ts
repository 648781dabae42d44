// Portal pages read their query string leniently (a link arrives with utm_source, fbclid and the like, and a
// person expects the page), while the API's query rules stay strict.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { bearer, type Harness } from '../../helpers/harness.js'
import { client, portalHarness, signedUpUser, type Client } from '../../helpers/portal.js'
import { testActor } from '../../helpers/actors.js'

const TRACKING = 'utm_source=x&fbclid=y'
const withTracking = (path: string) => `${path}${path.includes('?') ? '&' : '?'}${TRACKING}`

/** Every GET route under /portal/ but the static assets, read from the router so that a page added later is covered. */
function portalPages(app: FastifyInstance): string[] {
  const paths: string[] = []
  const stack: string[] = []
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const node = /^((?:[│ ] {3})*)[├└]── (.+?)(?: \(([^)]*)\))?$/.exec(line)
    if (!node) continue
    const depth = node[1]!.length / 4
    stack[depth] = (stack[depth - 1] ?? '') + node[2]!
    if (/\bGET\b/.test(node[3] ?? '')) paths.push(stack[depth]!)
  }
  return paths.filter((p) => p.startsWith('/portal') && !p.startsWith('/portal/assets/'))
}

/** A route's path with its parameters filled in: the visitor's own key where one is asked for, else a bad value. */
const fill = (path: string, keyId: string) => path.replace(/:keyId/g, keyId).replace(/:\w+/g, 'nonsense')

/**
 * Where a redirect leads, ignoring query strings: the log-in page may keep the tracking parameters in `next`
 * (and without a `next` it leads to the keys page).
 */
function target(location: string | string[] | undefined): string | undefined {
  if (typeof location !== 'string') return undefined
  const url = new URL(location, 'http://portal.invalid')
  if (url.pathname !== '/portal/login') return url.pathname
  const next = new URL(url.searchParams.get('next') ?? '/portal/keys', 'http://portal.invalid')
  return `/portal/login then ${next.pathname}`
}

const heading = (response: LightMyRequestResponse) => /<h1>(.*?)<\/h1>/s.exec(response.body)?.[1]

async function sameWithTracking(c: Client, path: string, who: string): Promise<void> {
  const plain = await c.get(path)
  const tagged = await c.get(withTracking(path))
  assert.ok([200, 303, 400, 404].includes(plain.statusCode), `${who} ${path}: ${plain.statusCode}`)
  assert.equal(tagged.statusCode, plain.statusCode, `${who} ${withTracking(path)}: ${tagged.body}`)
  assert.equal(target(tagged.headers.location), target(plain.headers.location), `${who} ${path}: the same redirect`)
  assert.equal(heading(tagged), heading(plain), `${who} ${path}: the same page`)
}

async function signedUp(h: Harness & { outbox: string }, email: string) {
  const c = await signedUpUser(h, email)
  const user = (await h.services.portal!.repo.findUserByEmail(email))!
  const key = await h.services.accounts.createApiKey({
    actor: testActor,
    accountId: user.account_id,
    environment: 'test',
    name: 'ci',
  })
  return { c, keyId: key.id }
}

test('every portal page answers with tracking parameters as it does without, logged out and logged in', async (t) => {
  const h = await portalHarness(t)
  const pages = portalPages(h.app)
  for (const expected of [
    '/portal/signup',
    '/portal/login',
    '/portal/reset-request',
    '/portal/keys',
    '/portal/keys/new',
    '/portal/usage',
    '/portal/account',
    '/portal/keys/:keyId/roll',
  ]) {
    assert.ok(pages.includes(expected), `${expected} is among the pages found: ${pages.join(' ')}`)
  }
  const { c, keyId } = await signedUp(h, 'tracked@example.com')
  const visitor = client(h.app)
  for (const path of pages) {
    await sameWithTracking(visitor, fill(path, 'key_0'), 'logged out')
    await sameWithTracking(c, fill(path, keyId), 'logged in')
  }
  // The pages a person lands on from outside, shown as such (not a redirect or an error).
  for (const path of ['/portal/signup', '/portal/login', '/portal/reset-request']) {
    const response = await visitor.get(withTracking(path))
    assert.equal(response.statusCode, 200, path)
  }
  for (const path of [
    '/portal/keys',
    '/portal/keys/new',
    '/portal/usage',
    '/portal/account',
    `/portal/keys/${keyId}/roll`,
  ]) {
    assert.equal((await c.get(withTracking(path))).statusCode, 200, path)
  }
})

test('a known parameter with a value a page cannot use falls back instead of refusing the page', async (t) => {
  const h = await portalHarness(t)
  const { c } = await signedUp(h, 'fallback@example.com')
  const account = await c.get('/portal/usage')
  for (const key of ['nonsense', 'key_' + 'f'.repeat(120)]) {
    const usage = await c.get(`/portal/usage?key=${key}`)
    assert.equal(usage.statusCode, 200, `?key=${key.slice(0, 20)}…`)
    assert.equal(usage.body, account.body, 'the whole account is shown')
  }
  assert.equal((await c.get('/portal/keys?sent=yes')).statusCode, 200)
  // An over-long token (a link mangled by a mail client) is an unusable link, not a malformed request.
  const tokenPages = portalPages(h.app).filter((p) => p === '/portal/verify' || p === '/portal/reset')
  for (const path of tokenPages) {
    const response = await client(h.app).get(`${path}?token=${'A'.repeat(300)}`)
    assert.match(response.body, /expired or was already used/, path)
  }
})

test('the API keeps refusing unknown query parameters', async (t) => {
  const h = await portalHarness(t)
  const { key } = await h.newAccount()
  const response = await h.app.inject({ method: 'GET', url: '/v1/pets?utm_source=x', headers: bearer(key) })
  assert.equal(response.statusCode, 400)
  assert.match(response.body, /utm_source/)
})
