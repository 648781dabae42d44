// /portal/usage: the plan beside the current counts, and the charts and tables of the account and of one key by
// outcome (success, client error, refused by the limit, server error), per minute and per day. The API calls go
// over real HTTP (a listening server); the 5xx is real (a database trigger refuses the insert).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { keyEnvironment } from '../../../src/modules/accounts/api-keys.js'
import { refuseInserts } from '../../helpers/backend.js'
import { portalHarness, signedUpUser } from '../../helpers/portal.js'
import { testActor } from '../../helpers/actors.js'

const T0 = Date.parse('2027-01-10T12:00:30Z')
const described = (body: string, id: 'minute' | 'day') =>
  new RegExp(`<desc id="${id}-desc">([^<]*)</desc>`).exec(body)![1]!

/** The chart `id`'s figure: its column headers, its table rows (label, then the four counts) and its bars' classes. */
function chartOf(body: string, id: 'minute' | 'day') {
  const figure = body.split('<figure class="chart">').find((f) => f.includes(`<title id="${id}-title">`))
  assert.ok(figure, `no ${id} chart`)
  const headers = [...figure.matchAll(/<th scope="col">([^<]*)/g)].map((m) => m[1]!.trim())
  const rows = [...figure.matchAll(/<tr><th scope="row">([^<]*)<\/th>((?:<td>\d+<\/td>)+)<\/tr>/g)].map((m) => [
    m[1]!,
    ...[...m[2]!.matchAll(/<td>(\d+)<\/td>/g)].map((n) => Number(n[1])),
  ])
  const bars = new Set([...figure.matchAll(/<rect class="([^"]+)"/g)].map((m) => m[1]!))
  return { headers, rows, bars }
}

test('the usage page splits requests by outcome, per minute and per day, for the account and per key', async (t) => {
  const h = await portalHarness(t, { listen: true, now: T0 })
  const c = await signedUpUser(h, 'usage@example.com')
  const { account_id: accountId } = await h.handle.db
    .selectFrom('portal_users')
    .select('account_id')
    .where('email_key', '=', 'usage@example.com')
    .executeTakeFirstOrThrow()
  // A small plan: the two successes, the 400, the 404 and the 500 use the minute up; the next two are refused.
  await h.services.accounts.setPlan({ actor: testActor, id: accountId, plan: 'enterprise', perMinute: 5, perDay: 100 })
  const environment = keyEnvironment(h.config.environment)
  const busy = await h.services.accounts.createApiKey({ actor: testActor, accountId, environment, name: 'busy' })
  const quiet = await h.services.accounts.createApiKey({ actor: testActor, accountId, environment, name: 'quiet' })
  const call = async (key: string, method: 'GET' | 'POST', path: string, body?: object) => {
    const headers = { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }
    const response = await fetch(h.baseUrl + path, { method, headers, body: body ? JSON.stringify(body) : undefined })
    await response.arrayBuffer()
    return response.status
  }

  assert.equal(await call(busy.key, 'GET', '/v1/pets'), 200)
  assert.equal(await call(busy.key, 'POST', '/v1/pets', { name: 'Rex', categoryId: 1 }), 201)
  assert.equal(await call(busy.key, 'POST', '/v1/pets', { name: 'Rex' }), 400)
  assert.equal(await call(busy.key, 'GET', '/v1/pets/987654'), 404)
  const allow = await refuseInserts(h.handle.db, 'pets')
  assert.equal(await call(busy.key, 'POST', '/v1/pets', { name: 'Rex', categoryId: 1 }), 500)
  await allow()
  assert.equal(await call(busy.key, 'GET', '/v1/pets'), 429)
  assert.equal(await call(busy.key, 'GET', '/v1/pets'), 429)
  h.clock.advance(60_000)
  assert.equal(await call(quiet.key, 'GET', '/v1/pets'), 200)

  const page = await c.get('/portal/usage')
  assert.equal(page.statusCode, 200)
  assert.match(page.body, />enterprise</)
  assert.match(page.body, /5 per minute, 100 per day/)
  assert.match(page.body, /This minute<\/div><div class="value">1 <span class="muted">of 5/)
  assert.match(
    page.body,
    /Today \(UTC\)<\/div><div class="value">6 <span class="muted">of 100/,
    'refused requests use no quota',
  )

  const minute = chartOf(page.body, 'minute')
  assert.deepEqual(minute.headers, ['Time (UTC)', 'Success', 'Client errors', 'Refused by limit', 'Server errors'])
  assert.deepEqual(minute.rows, [
    ['12:00', 2, 2, 2, 1],
    ['12:01', 1, 0, 0, 0],
    ['Total', 3, 2, 2, 1],
  ])
  assert.deepEqual(
    [...minute.bars].sort(),
    ['outcome-client-error', 'outcome-refused', 'outcome-server-error', 'outcome-success'],
    'a bar part per outcome',
  )
  assert.deepEqual(chartOf(page.body, 'day').rows, [
    ['01-10', 3, 2, 2, 1],
    ['Total', 3, 2, 2, 1],
  ])
  assert.equal(
    described(page.body, 'minute'),
    'Requests per minute, last hour, all keys: 6 admitted, 2 refused. ' +
      'By outcome: 3 succeeded, 2 client errors (4xx), 2 refused by the limit (429), 1 server error (5xx).',
  )
  assert.match(described(page.body, 'day'), /all keys: 6 admitted, 2 refused\. By outcome: 3 succeeded,/)
  for (const legend of ['Success (2xx, 3xx)', 'Client errors (4xx)', 'Refused by limit (429)', 'Server errors (5xx)'])
    assert.ok(page.body.includes(legend), legend)

  // Per key, through the picker's `key` parameter.
  const one = await c.get(`/portal/usage?key=${busy.id}`)
  assert.deepEqual(chartOf(one.body, 'minute').rows, [
    ['12:00', 2, 2, 2, 1],
    ['Total', 2, 2, 2, 1],
  ])
  assert.deepEqual(chartOf(one.body, 'day').rows, [
    ['01-10', 2, 2, 2, 1],
    ['Total', 2, 2, 2, 1],
  ])
  assert.match(described(one.body, 'minute'), /key busy: 5 admitted, 2 refused\./)
  const other = await c.get(`/portal/usage?key=${quiet.id}`)
  assert.deepEqual(chartOf(other.body, 'minute').rows, [
    ['12:01', 1, 0, 0, 0],
    ['Total', 1, 0, 0, 0],
  ])
  assert.deepEqual(chartOf(other.body, 'day').rows, [
    ['01-10', 1, 0, 0, 0],
    ['Total', 1, 0, 0, 0],
  ])
  // An id that is not one of the account's keys shows the account, never another account's figures.
  const unknown = await c.get('/portal/usage?key=key_0000')
  assert.deepEqual(chartOf(unknown.body, 'minute').rows.at(-1), ['Total', 3, 2, 2, 1])
})

test('a period without requests says so instead of an empty table', async (t) => {
  const h = await portalHarness(t, { now: T0 })
  const c = await signedUpUser(h, 'idle@example.com')
  const page = await c.get('/portal/usage')
  assert.equal(page.statusCode, 200)
  assert.equal(chartOf(page.body, 'minute').rows.length, 0)
  assert.equal((page.body.match(/No requests in this period\./g) ?? []).length, 2)
  assert.match(described(page.body, 'day'), /all keys: 0 admitted, 0 refused\./)
})
