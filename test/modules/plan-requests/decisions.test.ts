// An operator's decisions on plan requests, through the plan requests service (the console's pages and their
// roles are in test/sites/console/requests.test.ts): an approval changes the plan (the next API answer's
// X-RateLimit-Limit shows it) and mails the integrator; a decline mails the reason; a request is decided once,
// even by two operators at the same moment; an approval never moves an account down.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { keyEnvironment } from '../../../src/modules/accounts/api-keys.js'
import type { AuditActor } from '../../../src/modules/audit/audit-event.js'
import { PlanRequestError } from '../../../src/modules/plan-requests/plan-requests.service.js'
import { testActor } from '../../helpers/actors.js'
import { bearer, type Harness } from '../../helpers/harness.js'
import { linkIn, mails, ORIGIN, portalHarness, signedUpUser } from '../../helpers/portal.js'

const admin: AuditActor = { kind: 'operator', operatorId: 'op_admin', email: 'admin@ops.example', address: '10.0.0.7' }
const other: AuditActor = { kind: 'operator', operatorId: 'op_other', email: 'other@ops.example', address: '10.0.0.8' }

/** A signed-up integrator with a key and a pending request for `plan`. */
async function integratorAsking(h: Harness & { outbox: string }, email: string, plan: string) {
  await signedUpUser(h, email)
  const { account_id: accountId } = await h.handle.db
    .selectFrom('portal_users')
    .select('account_id')
    .where('email_key', '=', email)
    .executeTakeFirstOrThrow()
  const key = await h.services.accounts.createApiKey({
    accountId,
    environment: keyEnvironment(h.config.environment),
    actor: testActor,
  })
  const request = await h.services.planRequests!.create({
    accountId,
    plan,
    note: 'more please',
    actor: { kind: 'account', accountId, email, address: '127.0.0.1' },
  })
  return { accountId, key: key.key, request }
}

const limitNow = async (h: Harness, key: string) =>
  (await h.app.inject({ method: 'GET', url: '/v1/pets', headers: bearer(key) })).headers['x-ratelimit-limit']
const decisionMail = async (h: Harness & { outbox: string }, to: string) =>
  (await mails(h, h.outbox)).filter((m) => m.includes(`To: ${to}`) && m.includes('plan request'))
const rejection = (kind: PlanRequestError['kind'], message: RegExp) => (error: unknown) =>
  error instanceof PlanRequestError && error.kind === kind && message.test(error.message)

test(
  'an approval changes the plan from the next request on, ' + 'is on record, and is mailed to the integrator',
  async (t) => {
    const h = await portalHarness(t)
    const { accountId, key, request } = await integratorAsking(h, 'grow@example.com', 'pro')
    assert.equal(await limitNow(h, key), '60')

    const { request: decided, account } = await h.services.planRequests!.approve({ id: request.id, actor: admin })
    assert.equal(decided.state, 'approved')
    assert.equal(decided.decidedBy, 'admin@ops.example')
    assert.equal(account.plan, 'pro')
    assert.equal(await limitNow(h, key), '300', 'the pro quota on the very next request')

    const [mail] = await decisionMail(h, 'grow@example.com')
    assert.ok(mail, 'the integrator is mailed')
    assert.match(mail, /Subject: Your plan request was approved: pro/)
    assert.match(mail, /300 requests a minute and 10,000 a day/)
    assert.equal(linkIn(mail, '/portal/usage'), `${ORIGIN}/portal/usage`, 'the link is from the public URL')
    assert.match(mail, /Content-Transfer-Encoding: 7bit/)

    const entries = await h.services.audit.list({ accountId, limit: 20 })
    const approved = entries.find((e) => e.action === 'plan_request.approved')!
    assert.deepEqual(approved.actor, {
      kind: 'operator',
      id: 'op_admin',
      email: 'admin@ops.example',
      address: '10.0.0.7',
    })
    assert.deepEqual(approved.target, { kind: 'plan_request', id: request.id })
    assert.deepEqual(approved.changes, { before: { plan: 'free' }, after: { plan: 'pro' } })
    const changed = entries.find((e) => e.action === 'account.plan_changed')!
    assert.equal(changed.actor.email, 'admin@ops.example', "the plan change is the operator's too")
    assert.deepEqual(changed.changes, {
      before: { plan: 'free', perMinute: 60, perDay: 1000 },
      after: { plan: 'pro', perMinute: 300, perDay: 10000 },
    })

    // The usage page says so, and offers the plans above pro.
    const c = await signedUpUserPage(h, 'grow@example.com')
    assert.match(c, /Your request for the pro plan was approved 2027-01-01 00:00 UTC\./)
    assert.match(c, /<option value="business">/)
    assert.doesNotMatch(c, /<option value="pro">/)
  },
)

/** The usage page of a user who signed up earlier (a new log-in). */
async function signedUpUserPage(h: Harness, email: string): Promise<string> {
  const { client, GOOD_PASSWORD } = await import('../../helpers/portal.js')
  const c = client(h.app)
  await c.get('/portal/login')
  assert.equal((await c.post('/portal/login', { email, password: GOOD_PASSWORD })).statusCode, 303)
  return (await c.get('/portal/usage')).body
}

test('an enterprise approval needs its quotas, which then apply', async (t) => {
  const h = await portalHarness(t)
  const { accountId, key, request } = await integratorAsking(h, 'huge@example.com', 'enterprise')
  const refusals: Array<[number | undefined, number | undefined]> = [
    [undefined, undefined],
    [500, undefined],
    [0, 1000],
    [2.5, 1000],
    [2000, 1000],
  ]
  for (const [perMinute, perDay] of refusals) {
    await assert.rejects(
      h.services.planRequests!.approve({ id: request.id, actor: admin, perMinute, perDay }),
      rejection('input', /quotas|more than/),
      `${perMinute}/${perDay}`,
    )
  }
  assert.equal(
    (await h.services.planRequests!.get(request.id))!.state,
    'pending',
    'a refused approval leaves it pending',
  )
  await h.services.planRequests!.approve({ id: request.id, actor: admin, perMinute: 2500, perDay: 2_000_000 })
  assert.equal(await limitNow(h, key), '2500')
  const account = await h.services.accounts.getAccount(accountId)
  assert.deepEqual([account.plan, account.perMinute, account.perDay], ['enterprise', 2500, 2_000_000])
  const [mail] = await decisionMail(h, 'huge@example.com')
  assert.match(mail!, /2,500 requests a minute and 2,000,000 a day/)
})

test(
  'a decline keeps the plan, records the reason, ' + 'and mails it (in 7-bit text; the page shows it as written)',
  async (t) => {
    const h = await portalHarness(t)
    const { accountId, key, request } = await integratorAsking(h, 'nope@example.com', 'business')
    await assert.rejects(
      h.services.planRequests!.decline({ id: request.id, reason: '   ', actor: admin }),
      rejection('input', /Give a reason/),
    )
    await assert.rejects(
      h.services.planRequests!.decline({ id: request.id, reason: 'x\u202Ey', actor: admin }),
      rejection('input', /U\+202E/),
    )

    const reason = 'Trop tôt — réessayez en mars.\nUsage “low” so far.'
    const decided = await h.services.planRequests!.decline({ id: request.id, reason, actor: admin })
    assert.equal(decided.state, 'declined')
    assert.equal(decided.reason, reason)
    assert.equal((await h.services.accounts.getAccount(accountId)).plan, 'free')
    assert.equal(await limitNow(h, key), '60')

    const [mail] = await decisionMail(h, 'nope@example.com')
    assert.ok(mail)
    assert.match(mail, /Subject: Your plan request was declined: business/)
    assert.match(mail, /stays on the\s+free plan/)
    assert.match(mail, /Trop tot - reessayez en mars\.\r?\nUsage "low" so far\./)
    assert.equal(linkIn(mail, '/portal/usage'), `${ORIGIN}/portal/usage`)

    const [entry] = await h.services.audit.list({ accountId, action: 'plan_request.declined', limit: 5 })
    assert.deepEqual(entry!.changes, { plan: 'business', reason })
    assert.equal((await h.services.audit.list({ accountId, action: 'account.plan_changed', limit: 5 })).length, 0)

    const page = await signedUpUserPage(h, 'nope@example.com')
    assert.match(
      page,
      new RegExp(
        'Your request for the business plan was declined 2027-01-01 00:00 UTC\\. The reason given:<\\/p>\\n' +
          '<p>Trop tôt — réessayez en mars\\.<br>Usage “low” so far\\.<\\/p>',
      ),
    )
    assert.match(page, /<button type="submit">Request a higher plan<\/button>/, 'and may ask again')
  },
)

test(
  'a request is decided once: ' + 'a second decision is refused and changes nothing, even two at the same moment',
  async (t) => {
    const h = await portalHarness(t)
    const first = await integratorAsking(h, 'once@example.com', 'pro')
    await h.services.planRequests!.approve({ id: first.request.id, actor: admin })
    await assert.rejects(
      h.services.planRequests!.decline({ id: first.request.id, reason: 'no', actor: other }),
      rejection('decided', /already approved by admin@ops\.example at 2027-01-01T00:00:00\.000Z; nothing was changed/),
    )
    await assert.rejects(
      h.services.planRequests!.approve({ id: first.request.id, actor: other }),
      rejection('decided', /already approved/),
    )
    assert.equal((await h.services.planRequests!.get(first.request.id))!.decidedBy, 'admin@ops.example')
    await assert.rejects(
      h.services.planRequests!.approve({ id: 'preq_nope', actor: admin }),
      rejection('not_found', /no plan request preq_nope/),
    )

    // Two operators at once, one approving and one declining: exactly one wins, and the plan matches the winner.
    const second = await integratorAsking(h, 'twice@example.com', 'business')
    const results = await Promise.allSettled([
      h.services.planRequests!.approve({ id: second.request.id, actor: admin }),
      h.services.planRequests!.decline({ id: second.request.id, reason: 'no', actor: other }),
      h.services.planRequests!.approve({ id: second.request.id, actor: other }),
    ])
    assert.equal(
      results.filter((r) => r.status === 'fulfilled').length,
      1,
      JSON.stringify(results.map((r) => r.status)),
    )
    const state = (await h.services.planRequests!.get(second.request.id))!.state
    assert.equal(
      (await h.services.accounts.getAccount(second.accountId)).plan,
      state === 'approved' ? 'business' : 'free',
    )
    const decisions = await h.services.audit.list({ accountId: second.accountId, limit: 20 })
    assert.equal(
      decisions.filter((e) => e.action === 'plan_request.approved' || e.action === 'plan_request.declined').length,
      1,
    )
    assert.equal((await decisionMail(h, 'twice@example.com')).length, 1, 'one mail')
  },
)

test(
  'an approval never moves an account down (a plan raised ' + 'meanwhile refuses it), nor changes a deleted account',
  async (t) => {
    const h = await portalHarness(t)
    const { accountId, request } = await integratorAsking(h, 'moved@example.com', 'pro')
    await h.services.accounts.setPlan({ id: accountId, plan: 'business', actor: admin })
    await assert.rejects(
      h.services.planRequests!.approve({ id: request.id, actor: admin }),
      rejection('state', /already on the business plan, not below pro: decline the request instead/),
    )
    assert.equal((await h.services.accounts.getAccount(accountId)).plan, 'business')
    assert.equal((await h.services.planRequests!.get(request.id))!.state, 'pending')
    // Declining it is fine, and a new request may follow.
    await h.services.planRequests!.decline({ id: request.id, reason: 'You already have business.', actor: admin })
    const next = await h.services.planRequests!.create({
      accountId,
      plan: 'enterprise',
      note: '',
      actor: { kind: 'account', accountId, email: 'moved@example.com' },
    })
    assert.equal(next.state, 'pending')
    // A deleted account's request cannot be approved (its plan stays), only declined.
    await h.services.accounts.deleteAccount(accountId, { actor: admin, reason: 'asked to' })
    await assert.rejects(
      h.services.planRequests!.approve({ id: next.id, actor: admin, perMinute: 10, perDay: 100 }),
      rejection('state', /The account was deleted: decline the request instead/),
    )
    assert.equal((await h.services.accounts.getAccount(accountId)).plan, 'business')
    assert.equal((await h.services.planRequests!.get(next.id))!.state, 'pending')
    assert.equal(
      (await h.services.planRequests!.decline({ id: next.id, reason: 'Account deleted.', actor: admin })).state,
      'declined',
    )
  },
)
