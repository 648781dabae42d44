// Setting up through the emailed-by-hand setup link and logging in, over HTTP: the password first, then the QR code
// drawn in the page, the confirming code, recovery codes shown once; log-in with a TOTP code (computed from the
// secret as an app does), with a recovery code (then used up); a replayed code refused; one message for every
// failure; the throttle.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { SETUP_LINK_TTL_MS } from '../../../src/modules/operators/operators.repository.js'
import { totpCode } from '../../../src/modules/sign-in/totp.js'
import { LOGIN_FAILURES_ALLOWED } from '../../../src/modules/sign-in/login-throttle.js'
import { consoleHarness, logIn, OPERATOR_PASSWORD, secretsIn, setUpOperator } from '../../helpers/console.js'
import { client } from '../../helpers/portal.js'

const cli = { kind: 'cli' as const, user: 'test' }
const FAILED = 'Email, password or code is incorrect.'

test(
  'setup: a password, then the QR code in the page and a confirming code, ' +
    'then 10 recovery codes once; the link is single use',
  async (t) => {
    const h = await consoleHarness(t)
    const { operator, setupToken } = await h.services.operators!.create({
      email: 'new@ops.example',
      role: 'admin',
      actor: cli,
    })
    const link = `/console/setup/${setupToken}`
    const c = client(h.app)
    // A forged Host changes no link on the page.
    const page = await h.app.inject({
      url: link,
      headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example' },
    })
    assert.equal(page.statusCode, 200)
    assert.ok(!page.body.includes('evil.example'))
    const form = await c.get(link)
    assert.equal(form.statusCode, 200)
    assert.match(String(form.headers['content-security-policy']), /default-src 'none'/)
    assert.match(form.body, /<label for="password">Password/)
    assert.deepEqual(secretsIn(form.body), [], 'no secret before the password')
    const weak = await c.post(link, { password: 'short' })
    assert.equal(weak.statusCode, 400)
    assert.match(weak.body, /at least 15 characters/)
    assert.deepEqual(secretsIn(weak.body), [])

    const offered = await c.post(link, { password: OPERATOR_PASSWORD })
    assert.equal(offered.statusCode, 200)
    assert.match(offered.body, /<svg [^>]*role="img"[^>]*aria-label="QR code of the authenticator link"/)
    assert.doesNotMatch(offered.body, /<script>|style="|<img/)
    const secret = /<code class="secret">([A-Z2-7]+)<\/code>/.exec(offered.body)![1]!
    assert.match(
      offered.body,
      new RegExp(
        `otpauth://totp/Petstore%20console:new%40ops.example\\?issuer=Petstore%20console&amp;secret=${secret}` +
          '&amp;algorithm=SHA1&amp;digits=6&amp;period=30',
      ),
    )
    assert.match(offered.body, /<label for="code">Code/)
    const cookie = offered.cookies.find((x) => x.name === 'console_setup')!
    assert.deepEqual(
      [cookie.path, cookie.httpOnly, cookie.sameSite],
      ['/console/setup/', true, 'Strict'],
      'this browser’s half of the offer',
    )

    const now = h.clock.now()
    const wrongCode = await c.post(`${link}/confirm`, { code: totpCode(secret, now + 90_000) })
    assert.equal(wrongCode.statusCode, 400)
    assert.match(wrongCode.body, /That code does not match/)
    assert.equal(
      /<code class="secret">([A-Z2-7]+)<\/code>/.exec(wrongCode.body)![1],
      secret,
      'the same secret on the re-rendered form',
    )

    const done = await c.post(`${link}/confirm`, { code: totpCode(secret, now) })
    assert.equal(done.statusCode, 200, done.body)
    const codes = [...done.body.matchAll(/<li><code>([0-9a-z]{5}-[0-9a-z]{5})<\/code><\/li>/g)].map((m) => m[1]!)
    assert.equal(codes.length, 10)
    assert.equal(done.headers['cache-control'], 'no-store')
    assert.equal(
      (await h.services.audit.list({ action: 'operator.setup_completed', limit: 5 }))[0]?.target?.id,
      operator.id,
    )

    for (const again of [
      await c.get(link),
      await c.post(link, { password: OPERATOR_PASSWORD }),
      await c.post(`${link}/confirm`, { code: totpCode(secret, now + 30_000) }),
    ]) {
      assert.equal(again.statusCode, 410)
      assert.match(again.body, /expired or was already used/)
    }
    // The confirming code was used: it does not log in; the next step's does, and a recovery code does.
    assert.equal(
      (await logIn(client(h.app), { email: 'new@ops.example', password: OPERATOR_PASSWORD }, totpCode(secret, now)))
        .statusCode,
      400,
    )
    assert.equal(
      (
        await logIn(
          client(h.app),
          { email: 'new@ops.example', password: OPERATOR_PASSWORD },
          totpCode(secret, now + 30_000),
        )
      ).statusCode,
      303,
    )
    assert.equal(
      (await logIn(client(h.app), { email: 'new@ops.example', password: OPERATOR_PASSWORD }, codes[0]!)).statusCode,
      303,
    )
  },
)

test('a setup link is dead after 24 hours, and an unknown or absurd one gets the same page', async (t) => {
  const h = await consoleHarness(t)
  const { setupToken } = await h.services.operators!.create({ email: 'slow@ops.example', role: 'support', actor: cli })
  h.clock.advance(SETUP_LINK_TTL_MS)
  for (const token of [setupToken, 'nope', 'x'.repeat(5000)]) {
    const r = await h.app.inject({ url: `/console/setup/${token}` })
    assert.equal(r.statusCode, 410)
    assert.match(r.body, /expired or was already used/)
  }
})

test(
  'log-in with a TOTP code: a session, operator.login on record with the address; ' + 'the same code again is refused',
  async (t) => {
    const h = await consoleHarness(t)
    const operator = await setUpOperator(h, { role: 'support' })
    const code = operator.codeAt(h.clock.now() + 30_000)
    const c = client(h.app)
    const form = await c.get('/console/login')
    for (const label of ['Email', 'Password', 'Code'])
      assert.match(form.body, new RegExp(`<label for="[a-z]+">${label}`))
    assert.match(form.body, /<button type="submit">Log in<\/button>/)
    const ok = await c.post('/console/login', {
      email: operator.email.toUpperCase(),
      password: operator.password,
      code: `${code.slice(0, 3)} ${code.slice(3)}`,
    })
    assert.equal(ok.statusCode, 303)
    assert.equal(ok.headers.location, '/console')
    const [entry] = await h.services.audit.list({ action: 'operator.login', limit: 5 })
    assert.deepEqual(entry!.actor, { kind: 'operator', id: operator.id, email: operator.email, address: '127.0.0.1' })
    assert.deepEqual(entry!.changes, { method: 'totp' })

    const replay = await logIn(client(h.app), operator, code)
    assert.equal(replay.statusCode, 400)
    assert.match(replay.body, new RegExp(FAILED))
    // Two log-ins racing with one fresh code: one gets in.
    h.clock.advance(30_000)
    const fresh = operator.codeAt(h.clock.now() + 30_000)
    const [a, b] = [client(h.app), client(h.app)]
    await Promise.all([a.get('/console/login'), b.get('/console/login')])
    const race = await Promise.all(
      [a, b].map((x) => x.post('/console/login', { email: operator.email, password: operator.password, code: fresh })),
    )
    assert.deepEqual(race.map((r) => r.statusCode).sort(), [303, 400])
  },
)

test(
  'log-in with a recovery code uses it up; ' +
    'every failure reads the same and failures against an operator are on record',
  async (t) => {
    const h = await consoleHarness(t)
    const operator = await setUpOperator(h, { role: 'admin' })
    const recovery = operator.recoveryCodes[3]!
    const ok = await logIn(client(h.app), operator, recovery.toUpperCase())
    assert.equal(ok.statusCode, 303)
    const [entry] = await h.services.audit.list({ action: 'operator.login', limit: 5 })
    assert.deepEqual(entry!.changes, { method: 'recovery_code', recoveryCodesLeft: 9 })

    const now = h.clock.now()
    const failures = [
      { email: operator.email, password: operator.password, code: recovery },
      { email: operator.email, password: 'wrong password entirely', code: operator.codeAt(now + 30_000) },
      { email: operator.email, password: operator.password, code: totpCode('AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', now) },
      { email: operator.email, password: operator.password, code: 'letmein' },
      { email: 'nobody@ops.example', password: operator.password, code: operator.codeAt(now) },
    ]
    for (const attempt of failures) {
      const c = client(h.app)
      await c.get('/console/login')
      const r = await c.post('/console/login', attempt)
      assert.equal(r.statusCode, 400)
      assert.match(r.body, /<div class="notice notice-error" role="alert">Email, password or code is incorrect.<\/div>/)
      assert.ok(!c.jar.has('console_session'))
    }
    const failed = await h.services.audit.list({ action: 'operator.login_failed', limit: 10 })
    assert.equal(failed.length, 5, 'the four against a real operator, and the unknown email')
    assert.deepEqual(failed.map((e) => e.changes?.failed).sort(), ['code', 'code', 'code', 'password', 'unknown_email'])
    // The wrong password did not use up the TOTP code it carried.
    assert.equal((await logIn(client(h.app), operator, operator.codeAt(now + 30_000))).statusCode, 303)

    // A disabled operator: the same message, even with everything right.
    await h.services.operators!.disable(operator.id, { kind: 'cli', user: 'test' })
    const disabled = await logIn(client(h.app), operator, operator.recoveryCodes[5]!)
    assert.equal(disabled.statusCode, 400)
    assert.match(disabled.body, new RegExp(FAILED))
  },
)

test(
  'log-in is throttled as the portal: ' +
    'after 10 failures for an email from one address, 429 even with the right code',
  async (t) => {
    const h = await consoleHarness(t)
    const operator = await setUpOperator(h, { role: 'support' })
    for (let i = 0; i < LOGIN_FAILURES_ALLOWED; i++) {
      assert.equal(
        (await logIn(client(h.app), { email: operator.email, password: 'wrong password entirely' }, '000000'))
          .statusCode,
        400,
      )
    }
    const refused = await logIn(client(h.app), operator, operator.codeAt(h.clock.now() + 30_000))
    assert.equal(refused.statusCode, 429)
    assert.match(String(refused.headers['retry-after']), /^\d+$/)
    assert.match(refused.body, /Too many failed log-ins/)
    assert.doesNotMatch(refused.body, /reset your password/, 'operators have no reset page')
    h.clock.advance(15 * 60 * 1000)
    assert.equal((await logIn(client(h.app), operator, operator.codeAt(h.clock.now()))).statusCode, 303)
  },
)

test('signed out, a console page leads to the log-in and back; only a console path is followed', async (t) => {
  const h = await consoleHarness(t)
  const away = await h.app.inject({ url: '/console/audit?action=operator.login' })
  assert.equal(away.statusCode, 303)
  assert.equal(away.headers.location, '/console/login?next=%2Fconsole%2Faudit%3Faction%3Doperator.login')
  assert.equal((await h.app.inject({ url: '/console' })).headers.location, '/console/login')
  const operator = await setUpOperator(h, { role: 'support' })
  let step = 1
  const tryNext = async (next: string) => {
    const c = client(h.app)
    await c.get(`/console/login?next=${encodeURIComponent(next)}`)
    const r = await c.post('/console/login', {
      email: operator.email,
      password: operator.password,
      code: operator.codeAt(h.clock.now() + 30_000 * step++),
      next,
    })
    assert.equal(r.statusCode, 303, r.body)
    return r.headers.location
  }
  assert.equal(await tryNext('/console/audit?action=operator.login'), '/console/audit?action=operator.login')
  for (const evil of [
    '//evil.example/x',
    'https://evil.example/',
    '/console/../portal/keys',
    '/\\evil.example',
    '/portal/keys',
    '/console/login',
  ]) {
    h.clock.advance(60_000)
    step = 1
    assert.equal(await tryNext(evil), '/console', evil)
  }
})
