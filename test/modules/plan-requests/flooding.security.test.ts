// Flooding the plan-request queue (issue 32, item 2), sent for real through the portal: throwaway accounts that never
// verified their address are refused (403, a page that says how to verify); verified ones get at most 3 requests
// waiting per account, and one client address at most 10 requests an hour (429 with Retry-After), counted in the
// shared rate-limit store, so two instances on PostgreSQL + Redis count them together.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { appWithServices } from '../../helpers/app-with-services.js'
import { freshRedisPrefix, postgresOnly, redisStore } from '../../helpers/backend.js'
import {
  client,
  GOOD_PASSWORD,
  linkIn,
  mails,
  portalHarness,
  signedUpUser,
  tokenOf,
  type Client,
} from '../../helpers/portal.js'
import type { Harness } from '../../helpers/harness.js'

const MINUTE = 60_000
const stored = async (h: Harness) => (await h.handle.db.selectFrom('plan_requests').select('id').execute()).length
const ask = (c: Client, plan: string) => c.post('/portal/plan-requests', { plan, note: 'We need more.' })

/** Signed up and logged in, address never verified (the portal lets such a user in). */
async function throwaway(h: Harness, email: string): Promise<Client> {
  const c = client(h.app)
  await c.get('/portal/signup')
  assert.equal((await c.post('/portal/signup', { email, password: GOOD_PASSWORD })).statusCode, 200)
  // The sign-up's own work (the account, its mail) runs after the answer: wait for it.
  await h.services.portal!.mailer.settled()
  await c.get('/portal/login')
  assert.equal((await c.post('/portal/login', { email, password: GOOD_PASSWORD })).statusCode, 303)
  return c
}

/** The same form post as `c` would send, from another client address. */
const askFrom = (h: Harness, c: Client, address: string, plan: string) =>
  h.app.inject({
    method: 'POST',
    url: '/portal/plan-requests',
    remoteAddress: address,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: 'http://portal.test',
      cookie: [...c.jar].map(([k, v]) => `${k}=${v}`).join('; '),
    },
    payload: new URLSearchParams({ _csrf: c.csrf, plan, note: '' }).toString(),
  })

test(
  'throwaway accounts that never verified their address are refused: ' +
    'a 403 page that says how to verify, nothing stored',
  async (t) => {
    const h = await portalHarness(t)
    for (let i = 0; i < 12; i++) {
      const c = await throwaway(h, `throwaway${i}@example.com`)
      const usage = await c.get('/portal/usage')
      assert.doesNotMatch(usage.body, /Request a higher plan<\/button>/, 'no form before the address is verified')
      assert.match(usage.body, /Verify your email address to ask for a higher plan/)
      const refused = await ask(c, i % 2 ? 'enterprise' : 'pro')
      assert.equal(refused.statusCode, 403, `throwaway ${i}`)
      assert.match(refused.headers['content-type'] as string, /^text\/html/)
      assert.match(refused.body, /role="alert"[^]*Verify your email address before asking for a higher plan/)
      assert.match(refused.body, /<form method="post" action="\/portal\/verify\/resend">[^]*Send the link again/)
    }
    assert.equal(await stored(h), 0)

    // Once verified (the mailed link), the same account may ask.
    const c = await throwaway(h, 'late@example.com')
    const mail = (await mails(h, h.outbox)).findLast(
      (m) => m.includes('late@example.com') && m.includes('/portal/verify'),
    )!
    const link = new URL(linkIn(mail, '/portal/verify'))
    await c.get(link.pathname)
    assert.equal((await c.post('/portal/verify', { token: tokenOf(link.href) })).statusCode, 200)
    await c.get('/portal/login')
    assert.equal(
      (await c.post('/portal/login', { email: 'late@example.com', password: GOOD_PASSWORD })).statusCode,
      303,
    )
    await c.get('/portal/usage')
    assert.equal((await ask(c, 'pro')).statusCode, 303)
    assert.equal(await stored(h), 1)
  },
)

test(
  'verified accounts: at most 3 requests waiting each, ' + 'and 10 requests an hour from one client address (then 429)',
  async (t) => {
    const h = await portalHarness(t)
    const [a, b, c, d] = [
      await signedUpUser(h, 'a@example.com'),
      await signedUpUser(h, 'b@example.com'),
      await signedUpUser(h, 'c@example.com'),
      await signedUpUser(h, 'd@example.com'),
    ]
    for (const user of [a, b, c, d]) await user.get('/portal/usage')
    h.clock.advance(20 * MINUTE)

    for (const plan of ['pro', 'business', 'enterprise']) assert.equal((await ask(a!, plan)).statusCode, 303, plan)
    const fourth = await ask(a!, 'pro')
    assert.equal(fourth.statusCode, 400)
    assert.match(fourth.body, /Your account has 3 requests waiting for an operator, the most it may have/)
    // Requests 4 to 10 from this address (the refused one above is not counted).
    for (const user of [b, c])
      for (const plan of ['pro', 'business', 'enterprise']) assert.equal((await ask(user!, plan)).statusCode, 303, plan)
    assert.equal((await ask(d!, 'pro')).statusCode, 303)
    assert.equal(await stored(h), 10)

    const throttled = await ask(d!, 'business')
    assert.equal(throttled.statusCode, 429)
    assert.match(throttled.headers['content-type'] as string, /^text\/html/)
    assert.equal(throttled.headers['retry-after'], String(40 * 60), 'until the hour is over')
    assert.match(
      throttled.body,
      /role="alert"[^]*Too many plan requests from your network: at most 10 an hour\. Try again in 40 minutes\./,
    )
    assert.equal(await stored(h), 10)

    // Another client address is not affected; this one is admitted again in the next hour.
    assert.equal((await askFrom(h, d!, '203.0.113.9', 'enterprise')).statusCode, 303)
    // (A visit halfway keeps the session, which ends after 30 idle minutes.)
    h.clock.advance(20 * MINUTE)
    await d!.get('/portal/usage')
    h.clock.advance(20 * MINUTE)
    assert.equal((await ask(d!, 'business')).statusCode, 303)
    assert.equal(await stored(h), 12)
  },
)

test('twelve requests sent at once from one address: ten are stored, two get 429', async (t) => {
  const h = await portalHarness(t)
  const users: Client[] = []
  for (let i = 0; i < 4; i++) users.push(await signedUpUser(h, `burst${i}@example.com`))
  for (const user of users) await user.get('/portal/usage')
  const answers = await Promise.all(
    users.flatMap((user) => ['pro', 'business', 'enterprise'].map((plan) => ask(user, plan))),
  )
  assert.deepEqual(answers.map((a) => a.statusCode).sort(), [...Array(10).fill(303), 429, 429])
  assert.equal(await stored(h), 10)
})

test('two instances on one PostgreSQL database and one Redis count the same requests', async (t) => {
  if (postgresOnly(t)) return
  // Registered before the harness's own clean-up, so that these instances close before its database does.
  const closers: Array<() => Promise<unknown>> = []
  t.after(async () => {
    for (const close of closers) await close()
  })
  const h = await portalHarness(t)
  // Each instance with its own Redis connection, on the same keys, and the same database.
  const prefix = freshRedisPrefix()
  const instance = async () => {
    const store = await redisStore(t, prefix)
    const { app, services } = await appWithServices({
      config: h.config,
      db: h.handle.db,
      pool: h.handle.pool,
      reads: h.handle.reads,
      engine: h.handle.engine,
      clock: h.clock,
      rateLimitStore: store,
      logger: false,
    })
    closers.push(
      () => app.close(),
      () => services.close(),
      () => store.close(),
    )
    return { app, services }
  }
  const [first, second] = [await instance(), await instance()]
  const users: Array<[Client, Client]> = []
  for (let i = 0; i < 4; i++) {
    const one = await signedUpUser({ ...first, outbox: h.outbox }, `user${i}@example.com`)
    const two = client(second.app)
    for (const [name, value] of one.jar) two.jar.set(name, value)
    await one.get('/portal/usage')
    await two.get('/portal/usage')
    users.push([one, two])
  }
  // Ten requests, alternating between the instances: neither alone has seen more than six.
  let n = 0
  for (const [one, two] of users.slice(0, 3))
    for (const plan of ['pro', 'business', 'enterprise'])
      assert.equal((await ask(n++ % 2 ? two : one, plan)).statusCode, 303)
  assert.equal((await ask(users[3]![0], 'pro')).statusCode, 303)
  assert.equal((await ask(users[3]![1], 'business')).statusCode, 429, 'the eleventh, on the second instance')
  assert.equal((await ask(users[3]![0], 'business')).statusCode, 429, 'and on the first')
  assert.equal(await stored(h), 10)
})
