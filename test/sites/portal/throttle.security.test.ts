// Log-in throttling: more than 10 failed log-ins for one address from one client within 15 minutes are
// answered 429 for the rest of the window, the right password included; kept in the database.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { client, GOOD_PASSWORD, linkIn, mails, portalHarness, signedUpUser, tokenOf } from '../../helpers/portal.js'

test(
  'after 10 failures within 15 minutes every attempt is ' + '429 (the right password too) until the window passes',
  async (t) => {
    const h = await portalHarness(t)
    await signedUpUser(h, 'target@example.com')
    const c = client(h.app)
    await c.get('/portal/login')
    for (let i = 1; i <= 10; i++) {
      h.clock.advance(30_000)
      const failed = await c.post('/portal/login', {
        email: 'target@example.com',
        password: `wrong password number ${i}`,
      })
      assert.equal(failed.statusCode, 400, `failure ${i}`)
    }
    const refused = await c.post('/portal/login', { email: 'target@example.com', password: GOOD_PASSWORD })
    assert.equal(refused.statusCode, 429)
    assert.match(refused.headers['content-type'] as string, /^text\/html/)
    assert.match(refused.body, /Too many failed log-ins/)
    // The first failure was 4.5 minutes ago: 10.5 minutes of its window are left.
    assert.equal(refused.headers['retry-after'], String(630))
    assert.equal(refused.headers['set-cookie'], undefined, 'no session was started')

    // Another address, or the same address from another client, is not affected.
    const other = client(h.app)
    await other.get('/portal/login')
    assert.equal(
      (await other.post('/portal/login', { email: 'other@example.com', password: 'some long wrong password' }))
        .statusCode,
      400,
    )
    const elsewhere = await h.app.inject({
      method: 'POST',
      url: '/portal/login',
      remoteAddress: '10.0.0.9',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'http://portal.test',
        cookie: [...c.jar].map(([k, v]) => `${k}=${v}`).join('; '),
      },
      payload: new URLSearchParams({ _csrf: c.csrf, email: 'target@example.com', password: GOOD_PASSWORD }).toString(),
    })
    assert.equal(elsewhere.statusCode, 303)

    // Still refused just before the window ends, admitted after it.
    h.clock.advance(630_000 - 1000)
    assert.equal(
      (await c.post('/portal/login', { email: 'target@example.com', password: GOOD_PASSWORD })).statusCode,
      429,
    )
    h.clock.advance(1000)
    assert.equal(
      (await c.post('/portal/login', { email: 'target@example.com', password: GOOD_PASSWORD })).statusCode,
      303,
    )
  },
)

test('the failures are counted in the database: a second instance on the same database refuses too', async (t) => {
  const h = await portalHarness(t)
  const c = client(h.app)
  await c.get('/portal/login')
  for (let i = 0; i < 10; i++)
    await c.post('/portal/login', { email: 'nobody@example.com', password: `wrong password number ${i}` })
  // What another instance would find: the same rows, read by a new repository on the same database.
  const { createPortalRepository } = await import('../../../src/modules/integrators/integrators.repository.js')
  const second = createPortalRepository({ db: h.handle.db, clock: h.clock, accounts: h.services.accounts })
  const seen = await second.failuresSince({
    email: 'NOBODY@example.com',
    address: '127.0.0.1',
    since: h.clock.now() - 15 * 60 * 1000,
  })
  assert.equal(seen.count, 10)
  assert.equal(
    (await c.post('/portal/login', { email: 'nobody@example.com', password: 'anything long enough' })).statusCode,
    429,
  )
})

/** A form post from one client address (inject's remoteAddress), with its own cookies and token. */
async function fromAddress(h: Awaited<ReturnType<typeof portalHarness>>, address: string) {
  const c = client(h.app)
  await c.get('/portal/login')
  return (email: string, password: string) =>
    h.app.inject({
      method: 'POST',
      url: '/portal/login',
      remoteAddress: address,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'http://portal.test',
        cookie: [...c.jar].map(([k, v]) => `${k}=${v}`).join('; '),
      },
      payload: new URLSearchParams({ _csrf: c.csrf, email, password }).toString(),
    })
}

test(
  'password spraying: after 30 failures from one address across ' +
    'any emails, that address gets 429 for the rest of the window',
  async (t) => {
    const h = await portalHarness(t)
    await signedUpUser(h, 'sprayed@example.com')
    const attacker = await fromAddress(h, '198.51.100.7')
    for (let i = 1; i <= 30; i++) {
      h.clock.advance(10_000)
      // Three tries per email: far below the per-email limit of 10.
      const failed = await attacker(`user${Math.ceil(i / 3)}@example.com`, `wrong password number ${i}`)
      assert.equal(failed.statusCode, 400, `failure ${i}`)
    }
    const refused = await attacker('sprayed@example.com', GOOD_PASSWORD)
    assert.equal(refused.statusCode, 429)
    assert.match(refused.body, /Too many failed log-ins/)
    assert.match(refused.body, /Wait \d+ minutes/)
    // The first failure was 4 min 50 s ago: 10 min 10 s of its window are left.
    assert.equal(refused.headers['retry-after'], String(610))
    // Another address is not affected.
    const elsewhere = await fromAddress(h, '203.0.113.20')
    assert.equal((await elsewhere('sprayed@example.com', GOOD_PASSWORD)).statusCode, 303)
    // After the window, the address may try again.
    h.clock.advance(610_000)
    assert.equal((await attacker('sprayed@example.com', GOOD_PASSWORD)).statusCode, 303)
  },
)

test(
  'a password reset lifts the throttle for that email: ' + "the person behind an attacker's address gets in",
  async (t) => {
    const h = await portalHarness(t)
    await signedUpUser(h, 'shared@example.com')
    const shared = await fromAddress(h, '192.0.2.44')
    // An attacker on the same address fails 10 times for this email and 30 times in all.
    for (let i = 1; i <= 30; i++)
      await shared(i <= 10 ? 'shared@example.com' : `other${i}@example.com`, `wrong password number ${i}`)
    assert.equal((await shared('shared@example.com', GOOD_PASSWORD)).statusCode, 429)
    // The owner resets the password through the mailed link.
    const c = client(h.app)
    await c.get('/portal/reset-request')
    await c.post('/portal/reset-request', { email: 'shared@example.com' })
    const link = linkIn((await mails(h, h.outbox)).findLast((m) => m.includes('/portal/reset/'))!, '/portal/reset/')
    await c.get(new URL(link).pathname)
    assert.equal(
      (await c.post('/portal/reset', { token: tokenOf(link), password: 'a brand new harbor lantern quartz' }))
        .statusCode,
      200,
    )
    assert.equal((await shared('shared@example.com', 'a brand new harbor lantern quartz')).statusCode, 303)
  },
)
