// /console/requests end to end: an integrator asks for a higher plan in the portal; it is listed in the console
// (waiting first, then recent decisions); an admin approves it through its confirmation page (the next API answer's
// X-RateLimit-Limit changes, the integrator is mailed) or declines it with a Reason (mailed); a request is decided
// once; a support operator sees the list without the buttons, and its replayed POSTs are 403 and change nothing.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { keyEnvironment } from '../../../src/modules/accounts/api-keys.js'
import { testActor } from '../../helpers/actors.js'
import { consoleHarness, ORIGIN, signedInOperator, type ConsoleHarness } from '../../helpers/console.js'
import { linkIn, mails, signedUpUser, type Client } from '../../helpers/portal.js'
import { api, buttonsOf, entriesOf, locationOf } from './account-support.js'

const T0 = Date.parse('2027-03-01T10:00:00Z')

/** An integrator signed up in the portal, with a key, who asked for `plan` on its usage page. */
async function asking(h: ConsoleHarness, email: string, plan: string, note = '') {
  const portal = await signedUpUser(h, email)
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
  await portal.get('/portal/usage')
  const sent = await portal.post('/portal/plan-requests', { plan, note })
  assert.equal(sent.statusCode, 303, sent.body)
  const { id } = await h.handle.db
    .selectFrom('plan_requests')
    .select('id')
    .where('account_id', '=', accountId)
    .where('state', '=', 'pending')
    .executeTakeFirstOrThrow()
  return { portal, accountId, key: key.key, id }
}

const stateOf = async (h: ConsoleHarness, id: string) =>
  await h.handle.db
    .selectFrom('plan_requests')
    .select(['state', 'decided_by'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow()
const decisionMails = async (h: ConsoleHarness, to: string) =>
  (await mails(h, h.outbox)).filter((m) => m.includes(`To: ${to}`) && m.includes('Subject: Your plan request'))
/** The rows of the table under the heading `title`. */
function section(body: string, title: string): string {
  const start = body.indexOf(`<h2>${title}</h2>`)
  assert.ok(start >= 0, `no ${title}`)
  const end = body.indexOf('<h2>', start + 4)
  return body.slice(start, end < 0 ? undefined : end)
}

/** Opens the confirmation step and sends its form; the response to the POST. */
async function decide(
  operator: Client,
  id: string,
  action: 'approve' | 'decline',
  fields: Record<string, string> = {},
) {
  const path = `/console/requests/${id}/${action}`
  const step = await operator.get(path)
  assert.equal(step.statusCode, 200, step.body)
  assert.ok(step.body.includes(`<form method="post" action="${path}"`), 'the confirmation step posts the decision')
  return operator.post(path, fields)
}

test(
  'an admin sees the request with its account and approves it: ' +
    'the plan changes on the next request and the owner is mailed',
  async (t) => {
    const h = await consoleHarness(t, { now: T0 })
    const { accountId, key, id, portal } = await asking(
      h,
      'grow@example.com',
      'pro',
      'Launch in April.\nAbout 200 calls a minute.',
    )
    const older = await asking(h, 'first@example.com', 'business')
    await h.handle.db
      .updateTable('plan_requests')
      .set({ created_at: '2027-02-27T09:00:00.000Z' })
      .where('id', '=', older.id)
      .execute()
    assert.equal((await api(h, key)).headers['x-ratelimit-limit'], '60')
    const admin = await signedInOperator(h, { role: 'admin' })

    const list = await admin.get('/console/requests')
    assert.equal(list.statusCode, 200)
    assert.match(list.body, /<a href="\/console\/requests" aria-current="page">Plan requests<\/a>/)
    const waiting = section(list.body, 'Waiting for a decision')
    assert.ok(waiting.indexOf(older.accountId) < waiting.indexOf(accountId), 'oldest first')
    assert.match(waiting, new RegExp(`<a href="/console/accounts/${accountId}">grow@example.com</a>`))
    assert.match(
      waiting,
      /<td data-label="Email">grow@example.com<\/td><td data-label="Current plan">free \(60\/min, 1,000\/day\)<\/td>/,
    )
    assert.match(
      waiting,
      new RegExp(
        '<td data-label="Requested"><strong>pro<\\/strong><\\/td>' +
          '<td class="note" data-label="Note">Launch in April\\.<br>About 200 calls a minute\\.<\\/td>',
      ),
    )
    assert.match(waiting, /2027-03-01<\/span> <span class="time">10:00 UTC/)
    assert.deepEqual(buttonsOf(waiting), ['Approve', 'Decline', 'Approve', 'Decline'])

    const step = await admin.get(`/console/requests/${id}/approve`)
    assert.match(step.body, /asks for the <strong>pro<\/strong> plan/)
    assert.doesNotMatch(step.body, /per_minute/, 'no quota fields but for enterprise')
    const approved = await decide(admin, id, 'approve')
    assert.equal(locationOf(approved), '/console/requests?done=approved')
    const after = await admin.get('/console/requests?done=approved')
    assert.match(after.body, /role="status">Approved: the account is on its new plan/)
    assert.doesNotMatch(section(after.body, 'Waiting for a decision'), new RegExp(accountId))
    assert.match(
      section(after.body, 'Recent decisions'),
      new RegExp(`Approved</span> by ${admin.operator.email.replace(/\./g, '\\.')}, 2027-03-01 10:00 UTC`),
    )

    assert.equal((await api(h, key)).headers['x-ratelimit-limit'], '300', 'the new limit on the next API request')
    assert.equal((await h.services.accounts.getAccount(accountId)).plan, 'pro')
    const [mail] = await decisionMails(h, 'grow@example.com')
    assert.ok(mail, 'the owner is mailed')
    assert.match(mail, /Subject: Your plan request was approved: pro/)
    assert.equal(linkIn(mail, '/portal/usage'), `${ORIGIN}/portal/usage`)

    const [entry] = await entriesOf(h, accountId, 'plan_request.approved')
    assert.equal(entry!.actor.kind, 'operator')
    assert.equal(entry!.actor.email, admin.operator.email)
    assert.equal((await entriesOf(h, accountId, 'account.plan_changed'))[0]!.actor.email, admin.operator.email)
    assert.match((await portal.get('/portal/usage')).body, /Your request for the pro plan was approved/)

    // Deciding it again is refused, and changes nothing.
    const again = await admin.post(`/console/requests/${id}/decline`, { reason: 'changed my mind' })
    assert.equal(again.statusCode, 409)
    assert.match(again.body, /already approved by [^ ]+; nothing was changed/)
    assert.equal((await admin.get(`/console/requests/${id}/approve`)).statusCode, 409)
    assert.equal((await stateOf(h, id)).state, 'approved')
    assert.equal((await decisionMails(h, 'grow@example.com')).length, 1)
    assert.equal((await admin.get('/console/requests/preq_unknown/approve')).statusCode, 404)
  },
)

test('an enterprise approval asks for the quotas; a decline needs a Reason, which is mailed', async (t) => {
  const h = await consoleHarness(t, { now: T0 })
  const big = await asking(h, 'big@example.com', 'enterprise')
  const admin = await signedInOperator(h, { role: 'admin' })

  const step = await admin.get(`/console/requests/${big.id}/approve`)
  assert.match(step.body, /<label for="per_minute">Requests per minute<\/label>/)
  assert.match(step.body, /<label for="per_day">Requests per day<\/label>/)
  for (const [perMinute, perDay] of [
    ['', ''],
    ['0', '100'],
    ['ten', '100'],
    ['500', '100'],
  ]) {
    const refused = await admin.post(`/console/requests/${big.id}/approve`, {
      per_minute: perMinute!,
      per_day: perDay!,
    })
    assert.equal(refused.statusCode, 400, `${perMinute}/${perDay}`)
    assert.match(refused.body, /role="alert"/)
    assert.match(
      refused.body,
      new RegExp(`id="per_minute" name="per_minute"[^>]*value="${perMinute}"`),
      'what was typed comes back',
    )
  }
  assert.equal((await stateOf(h, big.id)).state, 'pending')
  assert.equal(
    locationOf(await admin.post(`/console/requests/${big.id}/approve`, { per_minute: '1200', per_day: '900000' })),
    '/console/requests?done=approved',
  )
  assert.equal((await api(h, big.key)).headers['x-ratelimit-limit'], '1200')
  assert.match((await decisionMails(h, 'big@example.com'))[0]!, /1,200 requests a minute and 900,000 a day/)

  const small = await asking(h, 'small@example.com', 'business', 'please')
  const declineStep = await admin.get(`/console/requests/${small.id}/decline`)
  assert.match(declineStep.body, /<label for="reason">Reason<\/label>/)
  assert.match(declineStep.body, /<textarea id="reason" name="reason"[^>]* required/)
  const empty = await admin.post(`/console/requests/${small.id}/decline`, { reason: '  ' })
  assert.equal(empty.statusCode, 400)
  assert.match(empty.body, /Give a reason: it is mailed to the integrator\./)
  assert.equal((await stateOf(h, small.id)).state, 'pending')

  const declined = await decide(admin, small.id, 'decline', {
    reason: 'Business needs a signed contract.\nWrite to sales@petstore.example.',
  })
  assert.equal(locationOf(declined), '/console/requests?done=declined')
  const list = await admin.get('/console/requests?done=declined')
  assert.match(
    section(list.body, 'Recent decisions'),
    /Declined<\/span> by [^<]*\.<br>Reason: Business needs a signed contract\.<br>Write to sales@petstore\.example\./,
  )
  assert.equal((await h.services.accounts.getAccount(small.accountId)).plan, 'free')
  assert.equal((await api(h, small.key)).headers['x-ratelimit-limit'], '60')
  const [mail] = await decisionMails(h, 'small@example.com')
  assert.match(mail!, /Subject: Your plan request was declined: business/)
  assert.match(mail!, /Business needs a signed contract\.\r?\nWrite to sales@petstore\.example\./)
  const [entry] = await entriesOf(h, small.accountId, 'plan_request.declined')
  assert.deepEqual(entry!.changes, {
    plan: 'business',
    reason: 'Business needs a signed contract.\nWrite to sales@petstore.example.',
  })
})

test('support sees the requests without the buttons; its requests to decide are 403 and change nothing', async (t) => {
  const h = await consoleHarness(t, { now: T0 })
  const { accountId, key, id } = await asking(h, 'wait@example.com', 'pro')
  const support = await signedInOperator(h, { role: 'support' })

  const list = await support.get('/console/requests')
  assert.equal(list.statusCode, 200)
  assert.match(section(list.body, 'Waiting for a decision'), new RegExp(accountId))
  assert.match(list.body, /Only an admin may approve or decline\./)
  assert.doesNotMatch(list.body, /Approve|Decline</)
  assert.deepEqual(buttonsOf(section(list.body, 'Waiting for a decision')), [])

  assert.equal((await support.get(`/console/requests/${id}/approve`)).statusCode, 403)
  assert.equal((await support.get(`/console/requests/${id}/decline`)).statusCode, 403)
  // The POSTs an admin's page would send, replayed with support's own valid session and token.
  const approve = await support.post(`/console/requests/${id}/approve`, {})
  assert.equal(approve.statusCode, 403)
  assert.match(approve.body, /Your role \(support\) may not do this/)
  assert.equal((await support.post(`/console/requests/${id}/decline`, { reason: 'no' })).statusCode, 403)

  assert.deepEqual(await stateOf(h, id), { state: 'pending', decided_by: null })
  assert.equal((await h.services.accounts.getAccount(accountId)).plan, 'free')
  assert.equal((await api(h, key)).headers['x-ratelimit-limit'], '60')
  assert.equal((await decisionMails(h, 'wait@example.com')).length, 0)
  assert.equal((await entriesOf(h, accountId, 'plan_request.approved')).length, 0)
  assert.equal((await entriesOf(h, accountId, 'plan_request.declined')).length, 0)

  // Without a console session: the page sends to log in, a POST is refused.
  const stranger = (await import('../../helpers/portal.js')).client(h.app)
  const anonymous = await stranger.get('/console/requests')
  assert.equal(anonymous.statusCode, 303)
  assert.equal((await stranger.post(`/console/requests/${id}/approve`, {})).statusCode, 403)
  assert.equal((await stateOf(h, id)).state, 'pending')
})
