// Item 1 and 2 of issue 23: links, redirects, origin checks and cookies come from PETSTORE_PUBLIC_URL (or the
// listener's own origin), never from what a request carries. Each attack is sent for real: a reset request for a
// victim with a poisoned Host, X-Forwarded-Host or Forwarded header (behind a trusted proxy too).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ConfigError, loadConfig } from '../../../src/kernel/config.js'
import { client, linkIn, mails, ORIGIN, portalHarness } from '../../helpers/portal.js'

const POISONED: Record<string, Record<string, string>> = {
  Host: { host: 'evil.example' },
  'X-Forwarded-Host': { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
  'Forwarded: host=': { forwarded: 'for=203.0.113.9;host=evil.example;proto=https' },
  'all of them': { host: 'evil.example:8443', 'x-forwarded-host': 'evil.example', forwarded: 'host=evil.example' },
}

/** Every absolute URL in a message. */
const urlsIn = (mail: string) => mail.match(/https?:\/\/[^\s>"]+/g) ?? []

const SETUPS = [
  { what: 'PETSTORE_PUBLIC_URL set', env: {}, origin: ORIGIN },
  {
    what: 'PETSTORE_PUBLIC_URL unset',
    env: { PETSTORE_PUBLIC_URL: '', PORT: '8123' },
    origin: 'http://127.0.0.1:8123',
  },
]
for (const trustProxy of ['false', '127.0.0.1'])
  for (const { what, env, origin: ORIGIN } of SETUPS) {
    test(
      `a reset request with a poisoned header mails only the ` +
        `configured origin (${what}, TRUST_PROXY=${trustProxy})`,
      async (t) => {
        const h = await portalHarness(t, { env: { TRUST_PROXY: trustProxy, ...env } })
        const victim = client(h.app, ORIGIN)
        await victim.get('/portal/signup')
        assert.equal(
          (
            await victim.post(
              '/portal/signup',
              { email: 'victim@example.com', password: 'violet-harbor-quartz-lantern' },
              { origin: ORIGIN },
            )
          ).statusCode,
          200,
        )
        for (const [name, headers] of Object.entries(POISONED)) {
          h.clock.advance(61_000) // one reset link a minute per address
          const before = (await mails(h, h.outbox)).length
          const attacker = client(h.app, ORIGIN)
          await attacker.get('/portal/reset-request')
          const response = await attacker.post(
            '/portal/reset-request',
            { email: 'victim@example.com' },
            { origin: ORIGIN, ...headers },
          )
          assert.equal(response.statusCode, 200, name)
          const sent = (await mails(h, h.outbox)).slice(before)
          assert.equal(sent.length, 1, name)
          assert.doesNotMatch(sent[0]!, /evil/, name)
          const urls = urlsIn(sent[0]!)
          assert.ok(urls.length > 0, name)
          for (const url of urls) assert.ok(url.startsWith(`${ORIGIN}/portal/`), `${name}: ${url}`)
        }
      },
    )
  }

test(
  'without PETSTORE_PUBLIC_URL (outside production) links ' + "are the listener's own origin, whatever the Host says",
  async (t) => {
    const h = await portalHarness(t, { env: { PETSTORE_PUBLIC_URL: '', HOST: '127.0.0.1', PORT: '8123' } })
    assert.equal(h.config.publicUrl, 'http://127.0.0.1:8123')
    const c = client(h.app, 'http://127.0.0.1:8123')
    await c.get('/portal/signup')
    const signup = await c.post(
      '/portal/signup',
      { email: 'own@example.com', password: 'violet-harbor-quartz-lantern' },
      { origin: 'http://127.0.0.1:8123', host: 'evil.example' },
    )
    assert.equal(signup.statusCode, 200)
    const link = linkIn((await mails(h, h.outbox)).findLast((m) => m.includes('/portal/verify/'))!, '/portal/verify/')
    assert.ok(link.startsWith('http://127.0.0.1:8123/portal/verify/'), link)
  },
)

test(
  'the origin check compares with the configured origin: ' + 'a form from the Host the request names is refused',
  async (t) => {
    const h = await portalHarness(t)
    const c = client(h.app, 'http://evil.example')
    await c.get('/portal/signup')
    const forged = await c.post(
      '/portal/signup',
      { email: 'x@example.com', password: 'violet-harbor-quartz-lantern' },
      { origin: 'http://evil.example', host: 'evil.example' },
    )
    assert.equal(forged.statusCode, 403)
    const forwarded = await c.post(
      '/portal/signup',
      { email: 'x@example.com', password: 'violet-harbor-quartz-lantern' },
      { origin: 'https://evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
    )
    assert.equal(forwarded.statusCode, 403)
  },
)

test('redirects are relative paths and API Link headers use the configured origin, whatever the Host', async (t) => {
  const h = await portalHarness(t)
  const page = await h.app.inject({
    method: 'GET',
    url: '/portal/keys',
    headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example' },
  })
  assert.equal(page.statusCode, 303)
  assert.match(String(page.headers.location), /^\/portal\/login/)
  const { key } = await h.newAccount()
  for (let i = 0; i < 3; i++)
    await h.app.inject({
      method: 'POST',
      url: '/v1/pets',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: { name: `p${i}`, categoryId: 1 },
    })
  const list = await h.app.inject({
    method: 'GET',
    url: '/v1/pets?limit=1',
    headers: { authorization: `Bearer ${key}`, host: 'evil.example', forwarded: 'host=evil.example' },
  })
  assert.equal(list.statusCode, 200)
  assert.match(String(list.headers.link), new RegExp(`^<${ORIGIN}/v1/pets\\?`))
})

test(
  'behind a TLS proxy (public URL https, ' + 'the hop http) the session cookie is Secure and __Host- prefixed',
  async (t) => {
    const h = await portalHarness(t, {
      env: { PETSTORE_PUBLIC_URL: 'https://portal.example', TRUST_PROXY: '127.0.0.1' },
    })
    const c = client(h.app, 'https://portal.example')
    await c.get('/portal/login')
    const login = await c.post(
      '/portal/login',
      { email: 'nobody@example.com', password: 'violet-harbor-quartz-lantern' },
      { origin: 'https://portal.example', 'x-forwarded-proto': 'http' },
    )
    assert.equal(login.statusCode, 400)
    const form = await h.app.inject({ method: 'GET', url: '/portal/signup', headers: { 'x-forwarded-proto': 'http' } })
    const cookie = String(form.headers['set-cookie'])
    assert.match(cookie, /^__Host-portal_pre=/)
    assert.match(cookie, /; Secure/)
    assert.match(cookie, /; Path=\//)
  },
)

test('in production the portal needs PETSTORE_PUBLIC_URL: a start-up error names both variables', () => {
  const production = { PETSTORE_ENV: 'production', MAIL_URL: 'smtp://mail.example:587' }
  for (const env of [{ ...production, PORTAL: 'on' }, production]) {
    assert.throws(
      () => loadConfig(env),
      (error: unknown) =>
        error instanceof ConfigError && /PORTAL/.test(error.message) && /PETSTORE_PUBLIC_URL/.test(error.message),
    )
  }
  assert.equal(loadConfig({ ...production, PORTAL: 'off' }).portal, false)
  assert.equal(
    loadConfig({ ...production, PETSTORE_PUBLIC_URL: 'https://portal.example' }).publicUrl,
    'https://portal.example',
  )
  assert.equal(loadConfig({ HOST: '0.0.0.0', PORT: '9000' }).publicUrl, 'http://localhost:9000')
})
