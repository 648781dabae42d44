// CSRF: every state-changing request needs the token of the visitor's session and the portal's own Origin
// (or Referer); otherwise 403 and nothing changes.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { client, GOOD_PASSWORD, portalHarness, signedUpUser } from '../../helpers/portal.js'

test(
  'creating a key from another origin, without an origin, ' +
    'or without the token is refused with 403 and changes nothing',
  async (t) => {
    const h = await portalHarness(t)
    const c = await signedUpUser(h, 'csrf@example.com')
    await c.get('/portal/keys/new')
    const accountId = (await h.services.portal!.repo.findUserByEmail('csrf@example.com'))!.account_id
    const fields = { name: 'k', expires: '' }
    const attempts = [
      { what: 'another origin', send: () => c.post('/portal/keys', fields, { origin: 'https://evil.example' }) },
      { what: 'the origin "null"', send: () => c.post('/portal/keys', fields, { origin: 'null' }) },
      { what: 'another port', send: () => c.post('/portal/keys', fields, { origin: 'http://portal.test:8080' }) },
      { what: 'no Origin nor Referer', send: () => c.post('/portal/keys', fields, {}) },
      {
        what: 'a foreign Referer',
        send: () => c.post('/portal/keys', fields, { referer: 'https://evil.example/portal/keys' }),
      },
      { what: 'no token', send: () => c.post('/portal/keys', { ...fields, _csrf: '' }) },
      { what: 'a wrong token', send: () => c.post('/portal/keys', { ...fields, _csrf: c.csrf.slice(0, -2) + 'AA' }) },
    ]
    for (const { what, send } of attempts) {
      const response = await send()
      assert.equal(response.statusCode, 403, what)
      assert.match(response.headers['content-type'] as string, /^text\/html/, what)
      assert.match(response.body, /another site/)
    }
    assert.equal((await h.services.accounts.listApiKeys(accountId)).length, 0)
    // Our own Referer (no Origin) is accepted, and so is the Origin.
    assert.equal(
      (await c.post('/portal/keys', fields, { referer: 'http://portal.test/portal/keys/new' })).statusCode,
      303,
    )
    await c.get('/portal/keys/new')
    assert.equal((await c.post('/portal/keys', fields)).statusCode, 303)
    assert.equal((await h.services.accounts.listApiKeys(accountId)).length, 2)
  },
)

test(
  "a token is bound to its session: another visitor's token, " + 'or the pre-login token after log-in, is refused',
  async (t) => {
    const h = await portalHarness(t)
    const victim = await signedUpUser(h, 'victim@example.com')
    const attacker = await signedUpUser(h, 'attacker@example.com')
    await attacker.get('/portal/keys')
    await victim.get('/portal/keys')
    const revoked = await victim.post('/portal/logout', { _csrf: attacker.csrf })
    assert.equal(revoked.statusCode, 403)
    assert.equal((await victim.get('/portal/keys')).statusCode, 200, 'still logged in')

    // A log-in form's token stops working once the session it belonged to (the pre-session) is replaced.
    const c = client(h.app)
    await c.get('/portal/login')
    const preToken = c.csrf
    await c.post('/portal/login', { email: 'victim@example.com', password: GOOD_PASSWORD })
    assert.equal((await c.post('/portal/logout', { _csrf: preToken })).statusCode, 403)
  },
)

test('log-in, sign-up and reset forms are protected too (log-in CSRF)', async (t) => {
  const h = await portalHarness(t)
  await signedUpUser(h, 'login@example.com')
  const c = client(h.app)
  await c.get('/portal/login')
  assert.equal(
    (
      await c.post(
        '/portal/login',
        { email: 'login@example.com', password: GOOD_PASSWORD },
        { origin: 'https://evil.example' },
      )
    ).statusCode,
    403,
  )
  assert.equal(
    (
      await c.post(
        '/portal/signup',
        { email: 'x@example.com', password: GOOD_PASSWORD },
        { origin: 'https://evil.example' },
      )
    ).statusCode,
    403,
  )
  assert.equal(
    (await c.post('/portal/reset-request', { email: 'login@example.com' }, { origin: 'https://evil.example' }))
      .statusCode,
    403,
  )
  // Without the pre-session cookie there is nothing to bind a token to.
  const bare = await h.app.inject({
    method: 'POST',
    url: '/portal/login',
    headers: { origin: 'http://portal.test', 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: c.csrf, email: 'login@example.com', password: GOOD_PASSWORD }).toString(),
  })
  assert.equal(bare.statusCode, 403)
  assert.equal(await h.services.portal!.repo.findUserByEmail('x@example.com'), undefined)
})

test("without PETSTORE_PUBLIC_URL the portal origin is the listener's own, never the request Host", async (t) => {
  const h = await portalHarness(t, { env: { PETSTORE_PUBLIC_URL: '', PORT: '8124' } })
  const c = client(h.app, 'http://127.0.0.1:8124')
  await c.get('/portal/signup')
  assert.equal((await c.post('/portal/signup', { email: 'host@example.com', password: GOOD_PASSWORD })).statusCode, 200)
  // What the old rule accepted: an Origin equal to the request's own Host.
  assert.equal(
    (
      await c.post(
        '/portal/signup',
        { email: 'host@example.com', password: GOOD_PASSWORD },
        { origin: 'http://localhost:80', host: 'localhost:80' },
      )
    ).statusCode,
    403,
  )
})
