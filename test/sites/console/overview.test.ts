// GET /console, the overview: accounts by plan (deleted ones not counted, suspended ones counted apart), sign-ups of
// the last 7 days, requests of the last hour and of today by outcome across all accounts, and the busiest accounts.
// The requests are real API calls with real keys (a real 500 from a database trigger); the page is read at once,
// without flushing the usage buffer first (the page does).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { refuseInserts } from '../../helpers/backend.js'
import { consoleHarness, signedInOperator } from '../../helpers/console.js'
import { testActor } from '../../helpers/actors.js'
import { client } from '../../helpers/portal.js'
import { tableRows } from '../../helpers/tables.js'

const T0 = Date.parse('2027-01-10T12:00:30Z')
const DAY = 86_400_000
const HOUR = 3_600_000

test('the overview counts accounts, sign-ups and requests by outcome, and names the busiest accounts', async (t) => {
  const h = await consoleHarness(t, { now: T0 - 10 * DAY })
  const call = async (key: string, method: 'GET' | 'POST', url: string, body?: object) =>
    (
      await h.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${key}` },
        ...(body ? { payload: body } : {}),
      })
    ).statusCode

  // Ten days ago: an account and a request, counted nowhere but in its plan.
  const old = await h.newAccount({ name: 'Old' })
  assert.equal(await call(old.key, 'GET', '/v1/pets'), 200)
  // Two days ago: three sign-ups; one is suspended, one deleted.
  h.clock.advance(8 * DAY)
  const pro = await h.newAccount({ name: 'Pro one', plan: 'pro' })
  const suspended = await h.newAccount({ name: 'Suspended one', plan: 'pro' })
  await h.services.accounts.suspend({ accountId: suspended.accountId, reason: 'abuse', actor: testActor })
  const gone = await h.newAccount({ name: 'Gone', plan: 'business' })
  await h.services.accounts.deleteAccount(gone.accountId, { actor: testActor })
  // Today, two hours before the page: two successes (today's, not the last hour's).
  h.clock.advance(2 * DAY - 2 * HOUR)
  const busy = await h.newAccount({ name: 'Busy <b>', plan: 'enterprise', perMinute: 4, perDay: 1000 })
  assert.equal(await call(busy.key, 'GET', '/v1/pets'), 200)
  assert.equal(await call(busy.key, 'GET', '/v1/pets'), 200)
  // This minute: a client error, a server error, two successes, then the minute's limit of 4 refuses two.
  h.clock.advance(2 * HOUR)
  assert.equal(await call(busy.key, 'GET', '/v1/pets/987654'), 404)
  const allow = await refuseInserts(h.handle.db, 'pets')
  assert.equal(await call(busy.key, 'POST', '/v1/pets', { name: 'Rex', categoryId: 1 }), 500)
  await allow()
  assert.equal(await call(busy.key, 'GET', '/v1/pets'), 200)
  assert.equal(await call(busy.key, 'GET', '/v1/pets'), 200)
  assert.equal(await call(busy.key, 'GET', '/v1/pets'), 429)
  assert.equal(await call(busy.key, 'GET', '/v1/pets'), 429)
  assert.equal(await call(pro.key, 'GET', '/v1/pets'), 200)

  for (const role of ['support', 'admin'] as const) {
    const operator = await signedInOperator(h, { role })
    const page = await operator.get('/console')
    assert.equal(page.statusCode, 200, `${role} reads the overview`)
    assert.match(page.body, /<title>Overview · /)

    assert.deepEqual(tableRows(page.body, 'overview-plans'), [
      ['Plan', 'Accounts', 'Of which suspended'],
      ['free', '1', '0'],
      ['pro', '2', '1'],
      ['business', '0', '0'],
      ['enterprise', '1', '0'],
      ['All plans', '4', '1'],
    ])
    assert.deepEqual(tableRows(page.body, 'overview-signups'), [
      ['Day (UTC)', 'Accounts created'],
      ['2027-01-04', '0'],
      ['2027-01-05', '0'],
      ['2027-01-06', '0'],
      ['2027-01-07', '0'],
      ['2027-01-08', '3'],
      ['2027-01-09', '0'],
      ['2027-01-10', '1'],
    ])
    assert.match(page.body, /Sign-ups in the last 7 days: 4 accounts created/)
    assert.deepEqual(tableRows(page.body, 'overview-requests'), [
      ['Period', 'Success 2xx, 3xx', 'Client errors 4xx', 'Refused by limit 429', 'Server errors 5xx', 'All requests'],
      ['Last hour since 11:01 UTC', '3', '1', '2', '1', '7'],
      ['Today since 00:00 UTC', '5', '1', '2', '1', '9'],
    ])
    assert.deepEqual(tableRows(page.body, 'overview-top').slice(1), [
      [`Busy <b> ${busy.accountId}`, 'none', '8', '2'],
      [`Pro one ${pro.accountId}`, 'none', '1', '0'],
    ])
    const refusals = /The ten accounts with the most refusals[\s\S]*?<\/table>/.exec(page.body)![0]
    assert.deepEqual(
      [...refusals.matchAll(/<a href="([^"]+)">/g)].map((m) => m[1]),
      [`/console/accounts/${busy.accountId}`],
    )
    assert.ok(
      page.body.includes(`<a href="/console/accounts/${busy.accountId}">Busy &lt;b&gt;</a>`),
      'names are escaped; accounts link to their pages',
    )
  }
})

test('the overview of a service with no requests today says so; signed out, it sends to the log-in', async (t) => {
  const h = await consoleHarness(t, { now: T0 })
  const signedOut = await client(h.app).get('/console')
  assert.equal(signedOut.statusCode, 303)
  assert.match(String(signedOut.headers.location), /^\/console\/login/)

  const operator = await signedInOperator(h, { role: 'support' })
  const page = await operator.get('/console')
  assert.equal(page.statusCode, 200)
  assert.match(page.body, /No requests today yet\./)
  assert.match(page.body, /No request was refused by a limit today\./)
  assert.deepEqual(tableRows(page.body, 'overview-requests').at(-1), ['Today since 00:00 UTC', '0', '0', '0', '0', '0'])
  // Unknown query parameters (a link from mail or a chat) are ignored.
  assert.equal((await operator.get('/console?utm_source=mail')).statusCode, 200)
})
