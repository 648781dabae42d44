// The console attacked through HTTP, each attack a test that passes while the defence holds: guessing codes with a
// stolen password (from one address, from many, all at once), replays of codes and recovery codes at the same time,
// telling operators apart by the log-in's answer, setup links (reuse, disabled operator, a secret of the attacker's
// choosing), CSRF variants, a support operator on plan requests, another account's key through an account's URL,
// open redirects, forged Host headers in mail, stored XSS, search input, /portal/activity paging, secrets in logs
// and in the audit log, and a suspended account's idempotent replays.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { totpCode } from '../../../src/modules/sign-in/totp.js'
import { LOGIN_FAILURES_ALLOWED, LOGIN_WINDOW_MS } from '../../../src/modules/sign-in/login-throttle.js'
import {
  consoleHarness,
  logIn,
  logInFrom,
  setUpOperator,
  signedInOperator,
  type SetUpOperator,
} from '../../helpers/console.js'
import { bearer } from '../../helpers/harness.js'
import { client, GOOD_PASSWORD, mails, ORIGIN, signedUpUser } from '../../helpers/portal.js'
import { testActor } from '../../helpers/actors.js'
import { unverifiedSignUp } from './account-support.js'
import type { Services } from '../../../src/main/services.js'

const FAILED = 'Email, password or code is incorrect.'
const cli = { kind: 'cli' as const, user: 'test' }

/** A 6-digit code that is not the operator's at `at` (nor a step either side). */
function wrongCode(op: SetUpOperator, at: number, seed: number): string {
  const valid = new Set([-30_000, 0, 30_000].map((d) => op.codeAt(at + d)))
  for (let n = seed; ; n++) {
    const code = String(100_000 + (n % 900_000))
    if (!valid.has(code)) return code
  }
}

const failuresOf = async (services: Services, operatorId: string) =>
  (await services.audit.list({ action: 'operator.login_failed', limit: 500 }))
    .filter((e) => e.target?.id === operatorId)
    .map((e) => (e.changes as { failed: string }).failed)

test(
  'codes cannot be guessed with a stolen password: ' +
    '10 a quarter hour per operator, from any number of addresses, even all at once',
  async (t) => {
    const h = await consoleHarness(t)
    const op = await setUpOperator(h, { role: 'admin' })
    const now = h.clock.now()
    // 30 guesses at the same instant, each from an address of its own (so the per-address throttle never counts).
    const guesses = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        logInFrom(h.app, `10.1.${i}.1`, { email: op.email, password: op.password, code: wrongCode(op, now, i * 7919) }),
      ),
    )
    for (const r of guesses) {
      assert.equal(r.statusCode, 400)
      assert.ok(r.body.includes(FAILED))
    }
    const failed = await failuresOf(h.services, op.id)
    assert.equal(failed.length, 30)
    const checked = failed.filter((f) => f === 'code').length
    assert.ok(
      checked <= LOGIN_FAILURES_ALLOWED,
      `at most ${LOGIN_FAILURES_ALLOWED} codes were checked: ${failed.join(', ')}`,
    )
    // A guess refused unchecked does not use the budget (code-attempts.ts), so how much of it the burst used depends on
    // how the 30 interleaved (with the suite's cheap password hash they can all be refused). Wrong codes one at a time,
    // each from a new address, use the rest: every one is checked until exactly LOGIN_FAILURES_ALLOWED were.
    for (let i = checked; i < LOGIN_FAILURES_ALLOWED; i++) {
      const r = await logInFrom(h.app, `10.3.${i}.1`, {
        email: op.email,
        password: op.password,
        code: wrongCode(op, now, 500_000 + i),
      })
      assert.equal(r.statusCode, 400)
    }
    assert.equal((await failuresOf(h.services, op.id)).filter((f) => f === 'code').length, LOGIN_FAILURES_ALLOWED)
    // The budget is spent: even the right code, from yet another address, is not checked, and reads as any failure.
    const right = await logInFrom(h.app, '10.2.0.1', {
      email: op.email,
      password: op.password,
      code: op.codeAt(now + 30_000),
    })
    assert.equal(right.statusCode, 400)
    assert.ok(right.body.includes(FAILED))
    // A quarter of an hour later the operator gets in.
    h.clock.advance(LOGIN_WINDOW_MS + 1000)
    const later = h.clock.now()
    assert.equal(
      (await logInFrom(h.app, '10.2.0.2', { email: op.email, password: op.password, code: op.codeAt(later) }))
        .statusCode,
      303,
    )
  },
)

test(
  'wrong passwords from many addresses do not lock the operator ' +
    'out (only tries with the right password count against codes)',
  async (t) => {
    const h = await consoleHarness(t)
    const op = await setUpOperator(h, { role: 'support' })
    for (let i = 0; i < 2 * LOGIN_FAILURES_ALLOWED; i++) {
      const r = await logInFrom(h.app, `10.3.${i}.1`, {
        email: op.email,
        password: `${op.password} wrong`,
        code: wrongCode(op, h.clock.now(), i),
      })
      assert.equal(r.statusCode, 400)
    }
    assert.equal(
      (
        await logInFrom(h.app, '10.4.0.1', {
          email: op.email,
          password: op.password,
          code: op.codeAt(h.clock.now() + 30_000),
        })
      ).statusCode,
      303,
    )
  },
)

test(
  'one TOTP code, or one recovery code, sent five times at once logs in once; ' +
    'a code 2 steps or an hour away never',
  async (t) => {
    const h = await consoleHarness(t)
    const op = await setUpOperator(h, { role: 'admin' })
    const now = h.clock.now()
    for (const code of [op.codeAt(now + 30_000), op.recoveryCodes[0]!]) {
      const results = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          logInFrom(h.app, `10.5.${i}.1`, { email: op.email, password: op.password, code }),
        ),
      )
      assert.deepEqual(results.map((r) => r.statusCode).sort(), [303, 400, 400, 400, 400])
    }
    for (const at of [now + 90_000, now - 60_000, now + 3_600_000]) {
      assert.equal(
        (await logInFrom(h.app, '10.6.0.1', { email: op.email, password: op.password, code: op.codeAt(at) }))
          .statusCode,
        400,
      )
    }
  },
)

test(
  'the log-in answers alike for an unknown email, a wrong password, ' +
    'a wrong code, an operator not set up and a disabled one',
  async (t) => {
    const h = await consoleHarness(t)
    const op = await setUpOperator(h, { role: 'admin' })
    const gone = await setUpOperator(h, { role: 'admin' })
    await h.services.operators!.disable(gone.id, cli)
    await h.services.operators!.create({ email: 'half@ops.example', role: 'admin', actor: cli })
    const now = h.clock.now()
    const attempts = [
      { email: 'nobody@ops.example', password: op.password, code: op.codeAt(now) },
      { email: op.email, password: `${op.password}!`, code: op.codeAt(now + 30_000) },
      { email: op.email, password: op.password, code: wrongCode(op, now, 1) },
      { email: 'half@ops.example', password: op.password, code: op.codeAt(now) },
      { email: gone.email, password: gone.password, code: gone.codeAt(now + 30_000) },
    ]
    const pages: string[] = []
    for (const [i, fields] of attempts.entries()) {
      const r = await logInFrom(h.app, `10.7.${i}.1`, fields)
      assert.equal(r.statusCode, 400)
      assert.equal(
        r.cookies.some((c) => c.name === 'console_session'),
        false,
      )
      // The page differs only by the email typed back and its CSRF token.
      pages.push(r.body.replaceAll(fields.email, 'EMAIL').replace(/name="_csrf" value="[^"]+"/, ''))
    }
    assert.ok(
      pages.every((p) => p === pages[0]),
      'every failure page is the same page',
    )
    // The right code of the operator was not used up by the wrong-password try: it still logs in.
    assert.equal(
      (await logInFrom(h.app, '10.7.9.1', { email: op.email, password: op.password, code: op.codeAt(now + 30_000) }))
        .statusCode,
      303,
    )
  },
)

test(
  "setup links: a secret of the attacker's choosing is not taken, " +
    "a disabled operator's link is dead, recovery codes are shown once",
  async (t) => {
    const h = await consoleHarness(t)
    const { operator, setupToken } = await h.services.operators!.create({
      email: 'victim@ops.example',
      role: 'admin',
      actor: cli,
    })
    const c = client(h.app)
    const link = `/console/setup/${setupToken}`
    await c.get(link)
    const offered = await c.post(link, { password: `operator ${GOOD_PASSWORD}` })
    const secret = /<code class="secret">([A-Z2-7]+)<\/code>/.exec(offered.body)![1]!
    const mine = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'
    const now = h.clock.now()
    // A code of the attacker's own secret, with the secret posted along (or in place of the form's): refused.
    for (const extra of [{ secret: mine }, { secret: mine, totp_secret: mine }] as Record<string, string>[]) {
      for (const [url, fields] of [
        [link, { password: `operator ${GOOD_PASSWORD}` }],
        [`${link}/confirm`, { code: totpCode(mine, now) }],
      ] as const) {
        const r = await c.post(url, { ...fields, ...extra })
        assert.ok(r.statusCode === 400, `status ${r.statusCode}`)
      }
    }
    const done = await c.post(`${link}/confirm`, { code: totpCode(secret, now) })
    assert.equal(done.statusCode, 200)
    const codes = [...done.body.matchAll(/<code>([0-9a-z]{5}-[0-9a-z]{5})<\/code>/g)].map((m) => m[1]!)
    assert.equal(codes.length, 10)
    // Reloading shows nothing of them; the attacker's secret never logs in, the enrolled one does.
    const reload = await c.get(`/console/setup/${setupToken}`)
    assert.equal(reload.statusCode, 410)
    assert.ok(codes.every((code) => !reload.body.includes(code)))
    assert.equal(
      (
        await logInFrom(h.app, '10.8.0.1', {
          email: operator.email,
          password: `operator ${GOOD_PASSWORD}`,
          code: totpCode(mine, now + 30_000),
        })
      ).statusCode,
      400,
    )
    assert.equal(
      (
        await logInFrom(h.app, '10.8.0.2', {
          email: operator.email,
          password: `operator ${GOOD_PASSWORD}`,
          code: totpCode(secret, now + 30_000),
        })
      ).statusCode,
      303,
    )

    // A link whose operator was disabled before using it: dead, on GET and POST.
    const second = await h.services.operators!.create({ email: 'later@ops.example', role: 'admin', actor: cli })
    const d = client(h.app)
    const secondLink = `/console/setup/${second.setupToken}`
    await d.get(secondLink)
    const secondSecret = /<code class="secret">([A-Z2-7]+)<\/code>/.exec(
      (await d.post(secondLink, { password: `operator ${GOOD_PASSWORD}` })).body,
    )![1]!
    await h.services.operators!.disable(second.operator.id, cli)
    assert.equal((await d.get(secondLink)).statusCode, 410)
    assert.equal((await d.post(secondLink, { password: `operator ${GOOD_PASSWORD}` })).statusCode, 410)
    assert.equal((await d.post(`${secondLink}/confirm`, { code: totpCode(secondSecret, now) })).statusCode, 410)
  },
)

test("CSRF: no Origin nor Referer, another session's token, a foreign Referer: 403 and nothing changes", async (t) => {
  const h = await consoleHarness(t)
  const admin = await signedInOperator(h, { role: 'admin' })
  const other = await signedInOperator(h, { role: 'admin' })
  const target = await h.newAccount({ name: 'target' })
  const url = `/console/accounts/${target.accountId}/suspend`
  await admin.get(url)
  await other.get(url)
  const attempts: Array<[Record<string, string>, Record<string, string>]> = [
    [{ reason: 'csrf' }, {}],
    [{ reason: 'csrf', _csrf: other.csrf }, { origin: ORIGIN }],
    [{ reason: 'csrf' }, { referer: 'http://evil.example/console/accounts' }],
    [{ reason: 'csrf' }, { origin: 'null' }],
    [{ reason: 'csrf' }, { origin: `${ORIGIN}.evil.example` }],
  ]
  for (const [fields, headers] of attempts) {
    const r = await admin.post(url, fields, headers)
    assert.equal(r.statusCode, 403, JSON.stringify(headers))
  }
  assert.equal((await h.services.accounts.getAccount(target.accountId)).suspendedAt, null)
  // The same request with the token and our Origin goes through (the refusals above were the token's and Origin's).
  assert.equal((await admin.post(url, { reason: 'csrf' })).statusCode, 303)
})

test(
  'support cannot approve or decline a plan request (GET or replayed POST); ' +
    "an admin cannot revoke another account's key through an account URL",
  async (t) => {
    const h = await consoleHarness(t)
    const support = await signedInOperator(h, { role: 'support' })
    const admin = await signedInOperator(h, { role: 'admin' })
    const a = await h.newAccount({ name: 'a' })
    const b = await h.newAccount({ name: 'b' })
    const request = await h.services.planRequests!.create({
      accountId: a.accountId,
      plan: 'pro',
      note: 'please',
      actor: testActor,
    })
    await admin.get(`/console/requests/${request.id}/approve`)
    const adminToken = admin.csrf
    await support.get('/console/requests')
    for (const kind of ['approve', 'decline']) {
      assert.equal((await support.get(`/console/requests/${request.id}/${kind}`)).statusCode, 403)
      const body: Record<string, string> = kind === 'decline' ? { reason: 'no' } : {}
      assert.equal((await support.post(`/console/requests/${request.id}/${kind}`, body)).statusCode, 403)
      assert.equal(
        (await support.post(`/console/requests/${request.id}/${kind}`, { ...body, _csrf: adminToken })).statusCode,
        403,
      )
    }
    assert.equal((await h.services.accounts.getAccount(a.accountId)).plan, 'free')
    assert.equal((await h.services.planRequests!.getListing(request.id))?.state, 'pending')

    // IDOR: B's key through A's URL.
    assert.equal((await admin.get(`/console/accounts/${a.accountId}/keys/${b.keyId}/revoke`)).statusCode, 400)
    assert.equal((await admin.post(`/console/accounts/${a.accountId}/keys/${b.keyId}/revoke`, {})).statusCode, 400)
    assert.equal((await admin.post(`/console/accounts/${a.accountId}/keys/${b.keyId}/unban`, {})).statusCode, 400)
    assert.equal((await h.app.inject({ url: '/v1/pets', headers: bearer(b.key) })).statusCode, 200)
  },
)

test('next= never leads off the console, however encoded', async (t) => {
  const h = await consoleHarness(t)
  const op = await setUpOperator(h, { role: 'support' })
  const evil = [
    '//evil.example',
    '/\\evil.example',
    '/console/../portal',
    '/console/%2e%2e/portal',
    '/console/..%2f..%2fportal',
    'https://evil.example/console',
    '/console//evil.example',
    '/console/\\evil.example',
    '%2F%2Fevil.example',
    '/console/\t/evil',
    '/console@evil.example',
    '/console/login?next=//evil.example',
  ]
  for (const next of evil) {
    const page = await h.app.inject({ url: `/console/login?next=${encodeURIComponent(next)}` })
    assert.ok(!page.body.includes('evil.example'), next)
    h.clock.advance(30_000)
    const c = client(h.app)
    await c.get('/console/login')
    const r = await c.post('/console/login', {
      email: op.email,
      password: op.password,
      code: op.codeAt(h.clock.now()),
      next,
    })
    assert.equal(r.statusCode, 303, next)
    // Where a browser goes: on our origin, under /console (a `%2f` stays part of one path segment there).
    const location = String(r.headers.location)
    const target = new URL(location, ORIGIN)
    assert.ok(
      location.startsWith('/console') && !location.startsWith('//') && !location.includes('\\'),
      `${next} -> ${location}`,
    )
    assert.ok(
      target.origin === ORIGIN && (target.pathname === '/console' || target.pathname.startsWith('/console/')),
      `${next} -> ${location}`,
    )
  }
})

test(
  'forged Host, X-Forwarded-Host and -Proto choose no link: ' +
    'the setup page, resend verification and plan decision mails',
  async (t) => {
    const h = await consoleHarness(t)
    const forged = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' }
    const admin = await signedInOperator(h, { role: 'admin' })
    // An unverified portal user (its sign-up mail waited for), who also asks for a higher plan.
    const { accountId } = await unverifiedSignUp(h, 'unverified@example.com')
    h.clock.advance(120_000)
    const send = (url: string, fields: Record<string, string> = {}) =>
      h.app.inject({
        method: 'POST',
        url,
        headers: {
          ...forged,
          origin: ORIGIN,
          cookie: [...admin.jar].map(([k, v]) => `${k}=${v}`).join('; '),
          'content-type': 'application/x-www-form-urlencoded',
        },
        payload: new URLSearchParams({ _csrf: admin.csrf, ...fields }).toString(),
      })
    await admin.get(`/console/accounts/${accountId}/verification`)
    assert.equal((await send(`/console/accounts/${accountId}/verification`)).statusCode, 303)
    const request = await h.services.planRequests!.create({ accountId, plan: 'pro', note: 'more', actor: testActor })
    await admin.get(`/console/requests/${request.id}/decline`)
    assert.equal((await send(`/console/requests/${request.id}/decline`, { reason: 'not now' })).statusCode, 303)
    const sent = await mails(h, h.outbox)
    assert.ok(sent.length >= 3)
    for (const mail of sent) {
      assert.ok(!mail.includes('evil.example'), mail)
      assert.ok(!/https:\/\/portal\.test/.test(mail))
    }
    assert.ok(sent.some((m) => m.includes(`${ORIGIN}/portal/verify/`)))
    const { setupToken } = await h.services.operators!.create({
      email: 'fresh@ops.example',
      role: 'support',
      actor: cli,
    })
    assert.ok(
      !(await h.app.inject({ url: `/console/setup/${setupToken}`, headers: forged })).body.includes('evil.example'),
    )
  },
)

const XSS = `"><script>alert(1)</script><img src=x onerror=alert(1)>'\` =cmd|' /C calc'!A0`

test(
  'stored XSS: names, notes and reasons with markup are text ' +
    'on every console page, in the CSV and on /portal/activity',
  async (t) => {
    const h = await consoleHarness(t)
    const admin = await signedInOperator(h, { role: 'admin' })
    const portalUser = await signedUpUser(h, 'xss@example.com')
    const accountId = (
      await h.handle.db
        .selectFrom('portal_users')
        .select('account_id')
        .where('email', '=', 'xss@example.com')
        .executeTakeFirstOrThrow()
    ).account_id
    await h.handle.db.updateTable('accounts').set({ name: XSS }).where('id', '=', accountId).execute()
    // A second account with markup in its name: searches for it list both (the results table), not one page.
    await h.newAccount({ name: `${XSS} too` })
    const key = await h.services.accounts.createApiKey({
      actor: testActor,
      accountId,
      environment: 'test',
      name: XSS.slice(0, 60),
    })
    const request = await h.services.planRequests!.create({ accountId, plan: 'pro', note: XSS, actor: testActor })
    await h.services.planRequests!.decline({ id: request.id, reason: XSS, actor: testActor })
    await admin.get(`/console/accounts/${accountId}/suspend`)
    assert.equal((await admin.post(`/console/accounts/${accountId}/suspend`, { reason: XSS })).statusCode, 303)
    const pages = [
      await admin.get(`/console/accounts/${accountId}`),
      await admin.get(`/console/accounts/${accountId}/keys/${key.id}/revoke`),
      await admin.get('/console/requests'),
      await admin.get(`/console/audit?account=${accountId}`),
      await admin.get(String((await admin.post('/console/accounts', { q: 'xss@example' })).headers.location)),
      await admin.get(`/console/accounts?q=${encodeURIComponent(XSS)}`),
      await portalUser.get('/portal/activity'),
    ]
    for (const page of pages) {
      assert.equal(page.statusCode, 200, page.body.slice(0, 300))
      assert.ok(!page.body.includes('<script>alert') && !page.body.includes('<img src=x'), page.body)
    }
    assert.ok(pages[0]!.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'the name is shown, escaped')
    const csv = await admin.get(`/console/audit.csv?account=${accountId}`)
    if (csv.statusCode === 200) {
      for (const line of csv.body.split('\n'))
        for (const cell of line.split(',')) assert.ok(!/^"?[=+\-@]/.test(cell) || /^"?'/.test(cell), cell)
    }
  },
)

test(
  'search: LIKE wildcards are literal, SQL is text, ' +
    'very long input a 400 page, a whole secret never on the page or in the log',
  async (t) => {
    const lines: string[] = []
    const h = await consoleHarness(t, {
      logger: { level: 'trace', stream: { write: (l: string) => void lines.push(l) } },
    })
    const admin = await signedInOperator(h, { role: 'support' })
    const a = await h.newAccount({ name: 'alpha' })
    await h.newAccount({ name: 'beta' })
    for (const q of [
      '%',
      '_',
      '%%',
      '\\',
      "' or '1'='1",
      "'; drop table accounts; --",
      '") or 1=1 --',
      'ａ%',
      'a\u0000b',
    ]) {
      const r = await admin.post('/console/accounts', { q })
      // A NUL (which PostgreSQL text cannot hold) may be refused as a bad form; never a 500.
      assert.ok(
        r.statusCode === 200 || (q.includes('\u0000') && r.statusCode === 400),
        `${JSON.stringify(q)}: ${r.statusCode}`,
      )
      assert.ok(!r.body.includes(`/console/accounts/${a.accountId}"`), `${q} matched everything`)
    }
    assert.equal(
      (await admin.get('/console/accounts?q=alpha')).headers.location,
      `/console/accounts/${a.accountId}?found=name`,
      'the accounts table is still there',
    )
    assert.equal((await admin.post('/console/accounts', { q: 'x'.repeat(5000) })).statusCode, 400)
    assert.equal((await admin.post('/console/accounts', { q: 'x'.repeat(20_000) })).statusCode, 400)
    const secret = await admin.post('/console/accounts', { q: a.key })
    assert.equal(secret.headers.location, `/console/accounts/${a.accountId}?found=secret`, 'its account, opened')
    assert.ok(!secret.body.includes(a.key))
    const viaGet = await admin.get(`/console/accounts?q=${encodeURIComponent(a.key)}`)
    assert.equal(viaGet.headers.location, `/console/accounts/${a.accountId}?found=secret`)
    const opened = await admin.get(String(viaGet.headers.location))
    assert.ok(!opened.body.includes(a.key.slice(0, 13)), 'nor on the page it opened')
    assert.ok(lines.length > 0)
    assert.ok(!lines.some((l) => l.includes(a.key) || l.includes(a.key.slice(12))), 'the secret is in no log line')
  },
)

test(
  'no secret in a log line or in audit_events: ' + 'setup token, password, TOTP secret, codes, session ids, API keys',
  async (t) => {
    const lines: string[] = []
    const h = await consoleHarness(t, {
      logger: { level: 'trace', stream: { write: (l: string) => void lines.push(l) } },
    })
    const { operator, setupToken } = await h.services.operators!.create({
      email: 'logs@ops.example',
      role: 'admin',
      actor: cli,
    })
    const c = client(h.app)
    const link = `/console/setup/${setupToken}`
    await c.get(link)
    const password = `operator ${GOOD_PASSWORD}`
    const now = h.clock.now()
    await c.post(link, { password: 'short' })
    const offered = await c.post(link, { password })
    const totpSecret = /<code class="secret">([A-Z2-7]+)<\/code>/.exec(offered.body)![1]!
    const setupCookie = c.jar.get('console_setup')!
    await c.post(`${link}/confirm`, { code: '000000' })
    const done = await c.post(`${link}/confirm`, { code: totpCode(totpSecret, now) })
    const codes = [...done.body.matchAll(/<code>([0-9a-z]{5}-[0-9a-z]{5})<\/code>/g)].map((m) => m[1]!)
    const op = { email: operator.email, password }
    assert.equal((await logIn(c, op, codes[0]!)).statusCode, 303)
    const d = client(h.app)
    assert.equal((await logIn(d, op, totpCode(totpSecret, now + 30_000))).statusCode, 303)
    assert.equal((await logIn(client(h.app), { ...op, password: `${password} wrong` }, codes[1]!)).statusCode, 400)
    const account = await h.newAccount({ name: 'keys' })
    await d.post('/console/accounts', { q: account.key })
    await h.app.inject({ url: '/v1/pets', headers: bearer(account.key) })
    await h.app.inject({ url: '/v1/pets', headers: bearer(`${account.key}x`) })
    const sessionIds = [...c.jar.values(), ...d.jar.values()].filter((v) => v.length > 20)
    const secrets = [
      setupToken,
      setupCookie,
      password,
      totpSecret,
      ...codes,
      ...codes.map((x) => x.replace('-', '')),
      ...sessionIds,
      account.key,
    ]
    const audit = JSON.stringify(
      await h.handle.db.selectFrom('audit_events').selectAll().execute(),
      (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v),
    )
    for (const s of secrets) {
      assert.ok(!lines.some((l) => l.includes(s)), `in a log line: ${s}`)
      assert.ok(!audit.includes(s), `in audit_events: ${s}`)
    }
  },
)

test("/portal/activity shows only the account's own entries, whatever `before` says", async (t) => {
  const h = await consoleHarness(t)
  const mallory = await signedUpUser(h, 'mallory@example.com')
  await signedUpUser(h, 'victim@example.com')
  const victimAccount = (
    await h.handle.db
      .selectFrom('portal_users')
      .select('account_id')
      .where('email', '=', 'victim@example.com')
      .executeTakeFirstOrThrow()
  ).account_id
  await h.services.accounts.createApiKey({
    actor: testActor,
    accountId: victimAccount,
    environment: 'test',
    name: 'victim-secret-key-name',
  })
  const maxSeq = Number(
    (
      await h.handle.db
        .selectFrom('audit_events')
        .select((eb) => eb.fn.max('seq').as('m'))
        .executeTakeFirstOrThrow()
    ).m,
  )
  for (const before of [
    String(maxSeq + 1),
    '1',
    '99999999999999999',
    '-1',
    '0',
    `${maxSeq}&account=${victimAccount}`,
    'abc',
    "1' or '1'='1",
  ]) {
    const r = await mallory.get(
      `/portal/activity?before=${encodeURIComponent(before).replace('%26', '&').replace('%3D', '=')}`,
    )
    assert.ok(r.statusCode === 200 || r.statusCode === 400, `${before}: ${r.statusCode}`)
    assert.ok(!r.body.includes('victim'), before)
  }
})

test(
  'a suspended account: its idempotent replay of a 201 is 403 account_suspended, ' +
    'with the limit headers, on /v1 and the messages interface',
  async (t) => {
    const h = await consoleHarness(t)
    const a = await h.newAccount()
    const create = {
      method: 'POST' as const,
      url: '/v1/pets',
      headers: { ...bearer(a.key), 'idempotency-key': 'replay-1' },
      payload: { name: 'Rex', categoryId: 1 },
    }
    assert.equal((await h.app.inject(create)).statusCode, 201)
    await h.services.accounts.suspend({ accountId: a.accountId, reason: 'abuse', actor: testActor })
    for (const request of [create, { method: 'GET' as const, url: '/v1/pets', headers: bearer(a.key) }]) {
      const r = await h.app.inject(request)
      assert.equal(r.statusCode, 403)
      assert.equal(r.json().code, 'account_suspended')
      assert.ok(r.headers['x-ratelimit-limit'] !== undefined)
    }
  },
)
