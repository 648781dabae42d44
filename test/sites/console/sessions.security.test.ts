// Console sessions and the console's guards: its own cookie (Path=/console, HttpOnly, SameSite=Strict; Secure and
// __Secure- with an https public URL), a new id at log-in, idle and absolute expiry, a disabled operator logged
// out, CSRF on every POST (a portal token is no console token), roles checked on the server, the portal's headers.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { CONSOLE_SESSION_IDLE_MS, CONSOLE_SESSION_MAX_MS } from '../../../src/sites/console/sessions.js'
import { consoleHarness, logIn, setUpOperator, signedInOperator } from '../../helpers/console.js'
import { client, ORIGIN, portalHarness, signedUpUser } from '../../helpers/portal.js'

const setCookies = (response: { headers: Record<string, unknown> }) =>
  [response.headers['set-cookie'] ?? []].flat() as string[]

test(
  'the session cookie: Path=/console, HttpOnly, SameSite=Strict over http; ' +
    'Secure and __Secure- with an https public URL',
  async (t) => {
    const h = await consoleHarness(t)
    const operator = await setUpOperator(h, { role: 'support' })
    const c = client(h.app)
    const login = await logIn(c, operator, operator.codeAt(h.clock.now() + 30_000))
    const session = setCookies(login).find((s) => s.startsWith('console_session='))!
    assert.match(session, /^console_session=[\w-]{43}; Path=\/console; HttpOnly; SameSite=Strict$/)
    assert.ok(!c.jar.has('portal_session'))

    // Whatever the request says about its scheme and host: the public URL alone decides.
    const https = await consoleHarness(t, { env: { PETSTORE_PUBLIC_URL: 'https://console.test' } })
    const op = await setUpOperator(https, { role: 'support' })
    const s = client(https.app, 'https://console.test')
    const form = await s.get('/console/login')
    assert.match(
      setCookies(form).find((x) => x.startsWith('__Secure-console_pre='))!,
      /; Path=\/console; HttpOnly; Secure; SameSite=Strict$/,
    )
    const secureLogin = await s.post('/console/login', {
      email: op.email,
      password: op.password,
      code: op.codeAt(https.clock.now() + 30_000),
    })
    assert.equal(secureLogin.statusCode, 303)
    assert.match(
      setCookies(secureLogin).find((x) => x.startsWith('__Secure-console_session='))!,
      /; Path=\/console; HttpOnly; Secure; SameSite=Strict$/,
    )
    const plain = await https.app.inject({
      url: '/console/login',
      headers: { 'x-forwarded-proto': 'http', host: 'evil.example' },
    })
    assert.ok(setCookies(plain).every((x) => x.startsWith('__Secure-')))
    assert.ok(!plain.body.includes('evil.example'))
  },
)

test(
  'a new session id at log-in; log-out ends it on the server; ' + 'the portal session is not a console session',
  async (t) => {
    const h = await consoleHarness(t)
    const c = await signedInOperator(h, { role: 'support' })
    const first = c.jar.get('console_session')!
    assert.equal((await c.get('/console')).statusCode, 200)
    const again = await c.post('/console/login', {
      email: c.operator.email,
      password: c.operator.password,
      code: c.operator.codeAt(h.clock.now() + 30_000 - 1),
    })
    assert.equal(again.statusCode, 400, 'that step is used')
    h.clock.advance(30_000)
    await c.get('/console/login')
    assert.equal(
      (
        await c.post('/console/login', {
          email: c.operator.email,
          password: c.operator.password,
          code: c.operator.codeAt(h.clock.now() + 30_000),
        })
      ).statusCode,
      303,
    )
    const second = c.jar.get('console_session')!
    assert.notEqual(second, first)
    assert.equal(
      (await h.app.inject({ url: '/console', headers: { cookie: `console_session=${first}` } })).statusCode,
      303,
      'the replaced id no longer works',
    )

    await c.get('/console')
    const out = await c.post('/console/logout', {})
    assert.equal(out.statusCode, 303)
    assert.equal(out.headers.location, '/console/login')
    assert.equal(
      (await h.app.inject({ url: '/console', headers: { cookie: `console_session=${second}` } })).statusCode,
      303,
    )
    assert.equal((await h.handle.db.selectFrom('operator_sessions').selectAll().execute()).length, 0)

    const integrator = await signedUpUser(h, 'integrator@example.com')
    const portalSession = integrator.jar.get('portal_session')!
    assert.equal(
      (
        await h.app.inject({
          url: '/console',
          headers: { cookie: `console_session=${portalSession}; portal_session=${portalSession}` },
        })
      ).statusCode,
      303,
    )
  },
)

test('a console session ends after 30 idle minutes, and after 12 hours however busy', async (t) => {
  const h = await consoleHarness(t)
  const c = await signedInOperator(h, { role: 'support' })
  h.clock.advance(CONSOLE_SESSION_IDLE_MS - 1000)
  assert.equal((await c.get('/console')).statusCode, 200, 'activity keeps it alive')
  h.clock.advance(CONSOLE_SESSION_IDLE_MS - 1000)
  assert.equal((await c.get('/console')).statusCode, 200)
  h.clock.advance(CONSOLE_SESSION_IDLE_MS)
  assert.equal((await c.get('/console')).statusCode, 303, 'idle for 30 minutes')

  const busy = await signedInOperator(h, { role: 'support' })
  const start = h.clock.now()
  while (h.clock.now() - start < CONSOLE_SESSION_MAX_MS - 20 * 60 * 1000) {
    h.clock.advance(20 * 60 * 1000)
    assert.equal((await busy.get('/console')).statusCode, 200)
  }
  h.clock.advance(20 * 60 * 1000)
  const ended = await busy.get('/console')
  assert.equal(ended.statusCode, 303)
  assert.equal(ended.headers.location, '/console/login')
})

test('a disabled operator is logged out at its next request', async (t) => {
  const h = await consoleHarness(t)
  const c = await signedInOperator(h, { role: 'admin' })
  assert.equal((await c.get('/console')).statusCode, 200)
  await h.services.operators!.disable(c.operator.id, { kind: 'cli', user: 'test' })
  assert.equal((await c.get('/console')).statusCode, 303)
  assert.equal((await h.handle.db.selectFrom('operator_sessions').selectAll().execute()).length, 0)
})

test('CSRF: a console POST without the token, with a portal token or from another origin is refused 403', async (t) => {
  const h = await consoleHarness(t)
  const c = await signedInOperator(h, { role: 'admin' })
  const refused = async (r: { statusCode: number; body: string }) => {
    assert.equal(r.statusCode, 403)
    assert.match(r.body, /Request refused/)
    assert.equal((await c.get('/console')).statusCode, 200, 'still signed in')
  }
  await refused(await c.post('/console/logout', { _csrf: '' }))
  await refused(await c.post('/console/logout', {}, { origin: 'https://evil.example' }))
  await refused(await c.post('/console/logout', {}, { referer: 'https://evil.example/x' }))
  await refused(await c.post('/console/logout', {}, {}))
  // The portal's token of a visitor who also holds a portal pre-session: never a console token.
  const portalForm = await h.app.inject({ url: '/portal/login' })
  const portalToken = /name="_csrf" value="([^"]+)"/.exec(portalForm.body)![1]!
  await refused(await c.post('/console/logout', { _csrf: portalToken }))
  // The console's own token at a log-in without any cookie: refused too (log-in CSRF).
  const bare = await h.app.inject({
    method: 'POST',
    url: '/console/login',
    headers: { origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
    payload: `_csrf=${c.csrf}&email=a%40b.example&password=x&code=1`,
  })
  assert.equal(bare.statusCode, 403)
})

test('a support operator is refused an admin action with 403, and nothing changes', async (t) => {
  const h = await consoleHarness(t)
  const account = await h.newAccount({ plan: 'free' })
  const support = await signedInOperator(h, { role: 'support' })
  await support.get(`/console/accounts/${account.accountId}`)
  const r = await support.post(`/console/accounts/${account.accountId}/plan`, {
    plan: 'pro',
    per_minute: '',
    per_day: '',
  })
  assert.equal(r.statusCode, 403)
  assert.match(r.body, /Your role \(support\) may not do this/)
  assert.equal((await h.services.accounts.getAccount(account.accountId)).plan, 'free')
})

test(
  "console pages carry the portal's security headers, " +
    'errors are console pages, and CONSOLE=off turns the console off alone',
  async (t) => {
    const h = await consoleHarness(t)
    const c = await signedInOperator(h, { role: 'support' })
    for (const r of [await c.get('/console'), await c.get('/console/login'), await c.get('/console/no-such-page')]) {
      assert.match(String(r.headers['content-security-policy']), /default-src 'none'.*frame-ancestors 'none'/)
      assert.equal(r.headers['x-frame-options'], 'DENY')
      assert.equal(r.headers['x-content-type-options'], 'nosniff')
      assert.equal(r.headers['cache-control'], 'no-store')
    }
    const missing = await c.get('/console/no-such-page')
    assert.equal(missing.statusCode, 404)
    assert.match(missing.body, /<title>Page not found · Petstore operator console<\/title>/)
    assert.match(missing.body, /<button type="submit" class="secondary">Log out<\/button>/)
    assert.match(
      missing.body,
      new RegExp(`${c.operator.email.replace(/[.]/g, '\\.')}</span><span class="role">support</span>`),
    )
    const css = await c.get('/console/assets/console.css')
    assert.equal(css.statusCode, 200)
    assert.match(String(css.headers['content-type']), /^text\/css/)

    const off = await portalHarness(t, { env: { CONSOLE: 'off' } })
    assert.equal(off.services.operators, undefined)
    assert.equal((await off.app.inject({ url: '/console/login' })).statusCode, 404)
    assert.equal((await off.app.inject({ url: '/portal/login' })).statusCode, 200)
  },
)
