// What every portal page is sent with, emailed links (single use, 24 h / 1 h), and the API left as it was.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, errorOf, startHarness } from '../../helpers/harness.js'
import { client, GOOD_PASSWORD, linkIn, mails, portalHarness, signedUpUser, tokenOf } from '../../helpers/portal.js'

test('every page has a strict CSP, cannot be framed and is never stored; assets are ours', async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, 'headers@example.com')
  await c.get('/portal/keys/new')
  const secret = await c.get((await c.post('/portal/keys', { name: 'ci', expires: '' })).headers.location as string)
  for (const response of [
    await c.get('/portal/keys'),
    await c.get('/portal/usage'),
    secret,
    await h.app.inject('/portal/login'),
    await h.app.inject('/portal/nope'),
  ]) {
    const csp = response.headers['content-security-policy'] as string
    assert.match(csp, /default-src 'none'/)
    assert.match(csp, /script-src 'self'(;|$)/)
    assert.match(csp, /style-src 'self'(;|$)/)
    assert.match(csp, /frame-ancestors 'none'/)
    assert.equal(response.headers['x-frame-options'], 'DENY')
    assert.equal(response.headers['cache-control'], 'no-store')
    assert.doesNotMatch(
      response.body,
      /<script>|<script(?![^>]*\bsrc=)|\son[a-z]+=|\sstyle=|<style/i,
      'no inline script, handler or style',
    )
  }
  assert.match(secret.body, /ps_test_[\w-]{43}/)
  const css = await h.app.inject('/portal/assets/portal.css')
  assert.equal(css.statusCode, 200)
  assert.match(css.headers['content-type'] as string, /^text\/css/)
  assert.match((await h.app.inject('/portal/assets/portal.js')).headers['content-type'] as string, /^text\/javascript/)
})

test('what a visitor types is HTML-escaped', async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, 'escape@example.com')
  await c.get('/portal/keys/new')
  await c.post('/portal/keys', { name: '<img src=x onerror=alert(1)>"', expires: '' })
  const keys = await c.get('/portal/keys')
  assert.ok(keys.body.includes('&lt;img src=x onerror=alert(1)&gt;&quot;'))
  assert.ok(!keys.body.includes('<img'))
  const s = client(h.app)
  await s.get('/portal/signup')
  const page = await s.post('/portal/signup', { email: '"><script>x</script>', password: 'short' })
  assert.ok(!page.body.includes('<script>x'))
})

test('a verification link works once, for 24 hours; a reset link once, for 1 hour', async (t) => {
  const h = await portalHarness(t)
  const c = client(h.app)
  await c.get('/portal/signup')
  await c.post('/portal/signup', { email: 'links@example.com', password: GOOD_PASSWORD })
  const verify = tokenOf(linkIn((await mails(h, h.outbox))[0]!, '/portal/verify'))
  h.clock.advance(24 * 60 * 60 * 1000 + 1000)
  const late = await c.get(`/portal/verify?token=${verify}`)
  assert.equal(late.statusCode, 400)
  assert.match(late.body, /expired or was already used/)
  assert.equal((await c.post('/portal/verify', { token: verify })).statusCode, 400)
  assert.equal((await h.services.portal!.repo.findUserByEmail('links@example.com'))!.verified_at, null)

  await c.get('/portal/reset-request')
  await c.post('/portal/reset-request', { email: 'links@example.com' })
  const reset = tokenOf(
    linkIn((await mails(h, h.outbox)).findLast((m) => m.includes('/portal/reset/'))!, '/portal/reset/'),
  )
  // A refused password does not use the link up; a good one does.
  assert.equal((await c.post('/portal/reset', { token: reset, password: 'too short' })).statusCode, 400)
  assert.equal((await c.post('/portal/reset', { token: reset, password: 'the new long password' })).statusCode, 200)
  await c.get('/portal/login')
  assert.equal(
    (await c.post('/portal/reset', { token: reset, password: 'another new long password' })).statusCode,
    400,
    'used once',
  )

  h.clock.advance(61_000) // one link a minute at most
  await c.post('/portal/reset-request', { email: 'links@example.com' })
  const second = tokenOf(
    linkIn((await mails(h, h.outbox)).findLast((m) => m.includes('/portal/reset/'))!, '/portal/reset/'),
  )
  h.clock.advance(60 * 60 * 1000)
  assert.equal(
    (await c.post('/portal/reset', { token: second, password: 'another new long password' })).statusCode,
    400,
    'expired after 1 hour',
  )
  assert.equal(
    (await c.post('/portal/login', { email: 'links@example.com', password: 'the new long password' })).statusCode,
    303,
  )
})

test('portal traffic is not counted against the API quota and the API keeps its JSON errors', async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, 'quota@example.com')
  await c.get('/portal/keys/new')
  const key = /ps_test_[\w-]{43}/.exec(
    (await c.get((await c.post('/portal/keys', { name: 'q', expires: '' })).headers.location as string)).body,
  )![0]
  const first = await h.app.inject({ url: '/v1/pets', headers: bearer(key) })
  assert.equal(first.statusCode, 200)
  assert.equal(first.headers['x-ratelimit-remaining'], '59')
  for (let i = 0; i < 70; i++) await c.get('/portal/keys')
  const portalPage = await c.get('/portal/usage')
  assert.equal(portalPage.headers['x-ratelimit-limit'], undefined, 'no quota headers on portal pages')
  const second = await h.app.inject({ url: '/v1/pets', headers: bearer(key) })
  assert.equal(second.headers['x-ratelimit-remaining'], '58', 'only the API calls counted')
  // The API's error shape is unchanged, also for a form body sent to it.
  const wrong = await h.app.inject({
    method: 'POST',
    url: '/v1/pets',
    headers: { ...bearer(key), 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'name=x',
  })
  assert.equal(errorOf(wrong).code, 'invalid_content_type')
  assert.equal(errorOf(await h.app.inject('/v1/nope')).code, 'not_found')
})

test('with PORTAL=off there is no portal', async (t) => {
  const h = await startHarness(t, { env: { PORTAL: 'off' } })
  const response = await h.app.inject('/portal/login')
  assert.equal(response.statusCode, 404)
  assert.equal(errorOf(response).code, 'not_found')
  assert.equal(h.services.portal, undefined)
})

test('reset links are mailed at most once a minute per address, and the answer does not show it', async (t) => {
  const h = await portalHarness(t)
  await signedUpUser(h, 'flood@example.com')
  const before = (await mails(h, h.outbox)).length
  const c = client(h.app)
  await c.get('/portal/reset-request')
  const answers = []
  for (let i = 0; i < 5; i++)
    answers.push(
      (await c.post('/portal/reset-request', { email: 'flood@example.com' })).body.replace(/value="[^"]+"/g, ''),
    )
  assert.equal(new Set(answers).size, 1)
  assert.equal((await mails(h, h.outbox)).length - before, 1)
  h.clock.advance(60_001)
  await c.post('/portal/reset-request', { email: 'flood@example.com' })
  assert.equal((await mails(h, h.outbox)).length - before, 2)
})
