// The integrator's side of plan requests: the usage page's `Request a higher plan` form (plans above the current
// one only, none on enterprise), the requests waiting for an operator, and every refusal (a plan not above the
// current one, a second request for a plan that waits, a fourth waiting request, a note too long or not plain text,
// a forged form) with nothing stored. The decisions are in decisions.test.ts and test/sites/console/requests.test.ts;
// unverified addresses and the per-address throttle in flooding.security.test.ts.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { testActor } from '../../helpers/actors.js'
import { client, portalHarness, signedUpUser, type Client } from '../../helpers/portal.js'
import type { Harness } from '../../helpers/harness.js'

async function accountOf(h: Harness, email: string): Promise<string> {
  const row = await h.handle.db
    .selectFrom('portal_users')
    .select('account_id')
    .where('email_key', '=', email)
    .executeTakeFirstOrThrow()
  return row.account_id
}

const requestsOf = (h: Harness, accountId: string) =>
  h.handle.db.selectFrom('plan_requests').selectAll().where('account_id', '=', accountId).execute()
const options = (body: string) => [...body.matchAll(/<option value="([a-z]+)"/g)].map((m) => m[1])
const hasForm = (body: string) => body.includes('<button type="submit">Request a higher plan</button>')

async function ask(c: Client, fields: { plan: string; note?: string }) {
  return c.post('/portal/plan-requests', { plan: fields.plan, note: fields.note ?? '' })
}

test('an integrator asks for a higher plan on the usage page, which then shows the request waiting', async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, 'plans@example.com')
  const accountId = await accountOf(h, 'plans@example.com')

  const usage = await c.get('/portal/usage')
  assert.equal(usage.statusCode, 200)
  assert.ok(hasForm(usage.body), 'the form with its button')
  assert.deepEqual(options(usage.body), ['pro', 'business', 'enterprise'], 'only the plans above free')
  assert.match(usage.body, /<label for="note">Note<\/label>/)

  const sent = await ask(c, { plan: 'pro', note: '  We launch in March.\r\nAbout 200 calls a minute.  ' })
  assert.equal(sent.statusCode, 303, sent.body)
  assert.equal(sent.headers.location, '/portal/usage?requested=1#higher-plan')

  const after = await c.get('/portal/usage?requested=1')
  assert.match(
    after.body,
    /Request sent\. Your request for the pro plan, sent 2027-01-01 00:00 UTC, is waiting for an operator/,
  )
  assert.deepEqual(
    options(after.body),
    ['business', 'enterprise'],
    'the plan asked for is not offered again while it waits',
  )
  // Later visits say the same without "Request sent".
  const later = await c.get('/portal/usage')
  assert.match(later.body, /role="status">Your request for the pro plan, sent [^<]*, is waiting for an operator/)

  const rows = await requestsOf(h, accountId)
  assert.equal(rows.length, 1)
  assert.equal(rows[0]!.state, 'pending')
  assert.equal(rows[0]!.plan, 'pro')
  assert.equal(rows[0]!.note, 'We launch in March.\nAbout 200 calls a minute.', 'trimmed, line breaks kept as LF')

  const [entry] = await h.services.audit.list({ accountId, action: 'plan_request.created', limit: 10 })
  assert.ok(entry)
  assert.equal(entry.actor.kind, 'account')
  assert.equal(entry.actor.email, 'plans@example.com')
  assert.ok(entry.actor.address, 'the client address is recorded')
  assert.deepEqual(entry.target, { kind: 'plan_request', id: rows[0]!.id })
  assert.deepEqual(entry.changes, {
    plan: 'pro',
    currentPlan: 'free',
    note: 'We launch in March.\nAbout 200 calls a minute.',
  })
})

test(
  'refused with a reason on the page, and nothing stored: ' +
    'a plan not above the current one, a plan that waits, a fourth request, a bad note',
  async (t) => {
    const h = await portalHarness(t)
    const c = await signedUpUser(h, 'refused@example.com')
    const accountId = await accountOf(h, 'refused@example.com')
    await c.get('/portal/usage')

    const refusals: Array<[{ plan: string; note?: string }, RegExp]> = [
      [{ plan: 'free' }, /Your account is on the free plan: ask for a higher one \(pro, business, enterprise\)\./],
      [{ plan: 'gold' }, /There is no plan called &quot;gold&quot;/],
      [{ plan: 'pro', note: 'x'.repeat(1001) }, /The note has at most 1000 characters; this one has 1001\./],
      [{ plan: 'pro', note: 'fine\u202Eenif' }, /The note cannot hold control characters[^<]*U\+202E/],
      [{ plan: 'pro', note: 'tab\there' }, /U\+0009/],
    ]
    for (const [fields, message] of refusals) {
      const refused = await ask(c, fields)
      assert.equal(refused.statusCode, 400, JSON.stringify(fields))
      assert.match(refused.body, message)
      assert.match(refused.body, /role="alert"/)
      assert.ok(hasForm(refused.body), 'the form again, to correct')
    }
    // What was typed comes back (escaped), and the chosen plan stays chosen.
    const kept = await ask(c, { plan: 'business', note: '<b>bold</b>\u200B' })
    assert.match(kept.body, /<option value="business" selected>/)
    assert.match(kept.body, /&lt;b&gt;bold&lt;\/b&gt;/)
    assert.equal((await requestsOf(h, accountId)).length, 0)

    // A 1000-character note (in characters, not UTF-16 units) is fine.
    assert.equal((await ask(c, { plan: 'pro', note: '🐕'.repeat(1000) })).statusCode, 303)
    const again = await ask(c, { plan: 'pro' })
    assert.equal(again.statusCode, 400)
    assert.match(
      again.body,
      new RegExp(
        'Your request for the pro plan, sent on 2027-01-01, is still waiting for an operator\\. ' +
          'You can ask again once it is decided\\.',
      ),
    )
    assert.equal((await requestsOf(h, accountId)).length, 1)
    // Other plans may be asked for meanwhile, up to three requests waiting; then the form is gone and a fourth refused.
    assert.equal((await ask(c, { plan: 'business' })).statusCode, 303)
    assert.equal((await ask(c, { plan: 'enterprise' })).statusCode, 303)
    const usage = await c.get('/portal/usage')
    assert.ok(!hasForm(usage.body))
    assert.match(usage.body, /3 requests are waiting, the most an account may have/)
    const fourth = await ask(c, { plan: 'pro' })
    assert.equal(fourth.statusCode, 400)
    assert.match(
      fourth.body,
      new RegExp(
        'Your account has 3 requests waiting for an operator, the most it may have\\. ' +
          'You can ask again once one is decided\\.',
      ),
    )
    assert.equal((await requestsOf(h, accountId)).length, 3)

    // A form without its token is refused by the portal, as every POST.
    const forged = await c.post('/portal/plan-requests', { plan: 'business', note: '', _csrf: 'forged' })
    assert.equal(forged.statusCode, 403)
    assert.equal((await requestsOf(h, accountId)).length, 3)
  },
)

test('each account sees only its own request, and a visitor who is not signed in is sent to log in', async (t) => {
  const h = await portalHarness(t)
  const alice = await signedUpUser(h, 'alice@example.com')
  const bob = await signedUpUser(h, 'bob@example.com')
  await alice.get('/portal/usage')
  assert.equal((await ask(alice, { plan: 'business', note: 'alice note' })).statusCode, 303)
  const bobs = await bob.get('/portal/usage')
  assert.ok(hasForm(bobs.body))
  assert.doesNotMatch(bobs.body, /business plan, sent|alice note/)
  // Bob's own request is his own, whatever Alice has waiting.
  assert.equal((await ask(bob, { plan: 'pro' })).statusCode, 303)
  assert.equal((await requestsOf(h, await accountOf(h, 'bob@example.com'))).length, 1)

  const stranger = client(h.app)
  await stranger.get('/portal/login')
  const anonymous = await ask(stranger, { plan: 'pro' })
  assert.equal(anonymous.statusCode, 303)
  assert.equal(anonymous.headers.location, '/portal/login?next=%2Fportal%2Fusage')
  assert.equal((await h.handle.db.selectFrom('plan_requests').selectAll().execute()).length, 2)
})

test('an enterprise account gets no form, and a forged request for it is refused', async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, 'big@example.com')
  const accountId = await accountOf(h, 'big@example.com')
  await h.services.accounts.setPlan({
    id: accountId,
    plan: 'enterprise',
    perMinute: 5000,
    perDay: 1_000_000,
    actor: testActor,
  })
  const usage = await c.get('/portal/usage')
  assert.equal(usage.statusCode, 200)
  assert.ok(!hasForm(usage.body))
  assert.doesNotMatch(usage.body, /A higher plan/)
  const refused = await ask(c, { plan: 'enterprise' })
  assert.equal(refused.statusCode, 400)
  assert.match(refused.body, /already on the enterprise plan, the highest there is/)
  assert.equal((await requestsOf(h, accountId)).length, 0)
})

test('requests sent at the same time for one account: one per plan is stored, three at most', async (t) => {
  const h = await portalHarness(t)
  await signedUpUser(h, 'race@example.com')
  const accountId = await accountOf(h, 'race@example.com')
  const actor = { kind: 'account' as const, accountId, email: 'race@example.com', address: '127.0.0.1' }
  const plans = ['pro', 'business', 'enterprise']
  const results = await Promise.allSettled(
    Array.from({ length: 12 }, (_, i) =>
      h.services.planRequests!.create({ accountId, plan: plans[i % 3]!, note: `try ${i}`, actor }),
    ),
  )
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 3)
  for (const r of results)
    if (r.status === 'rejected') assert.match(String(r.reason), /still waiting for an operator|3 requests waiting/)
  assert.deepEqual((await requestsOf(h, accountId)).map((r) => r.plan).sort(), ['business', 'enterprise', 'pro'])
  assert.equal((await h.services.audit.list({ accountId, action: 'plan_request.created', limit: 20 })).length, 3)
})
