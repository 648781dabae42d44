// /portal/activity: the integrator's own account's audit entries, newest first and paged, in plain words; its own
// changes with the address it made them from, an operator's (console or command line) as "Operator" without its
// email or address; never another account's entries.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { keyEnvironment } from '../../../src/modules/accounts/api-keys.js'
import type { AuditActor } from '../../../src/modules/audit/audit-event.js'
import { ACTIVITY_PAGE_SIZE } from '../../../src/sites/portal/activity.routes.js'
import type { Harness } from '../../helpers/harness.js'
import { client, portalHarness, signedUpUser, type Client } from '../../helpers/portal.js'

const T0 = Date.parse('2027-05-02T08:30:00Z')
const operator: AuditActor = {
  kind: 'operator',
  operatorId: 'op_7',
  email: 'night-shift@ops.example',
  address: '203.0.113.77',
}
const shell: AuditActor = { kind: 'cli', user: 'rootuser42' }

async function accountOf(h: Harness, email: string): Promise<string> {
  return (
    await h.handle.db
      .selectFrom('portal_users')
      .select('account_id')
      .where('email_key', '=', email)
      .executeTakeFirstOrThrow()
  ).account_id
}

/** The table's rows: [when, what, details, by, from], newest first. */
function rowsOf(body: string): string[][] {
  const tbody = /<table class="activity cards">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(body)
  if (!tbody) return []
  return [...tbody[1]!.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((cell) =>
      cell[1]!
        .replace(/<br>/g, ' | ')
        .replace(/<[^>]+>/g, '')
        .replace(/&quot;/g, '"'),
    ),
  )
}

async function createKeyInPortal(c: Client, name: string) {
  await c.get('/portal/keys/new')
  const created = await c.post('/portal/keys', { name, expires: '' })
  assert.equal(created.statusCode, 303, created.body)
}

test(
  "the activity page lists the account's own entries in words: " + 'its own with its address, operators as "Operator"',
  async (t) => {
    const h = await portalHarness(t, { now: T0 })
    const alice = await signedUpUser(h, 'alice@example.com')
    const accountId = await accountOf(h, 'alice@example.com')
    await createKeyInPortal(alice, 'production server')
    await alice.get('/portal/usage')
    assert.equal(
      (await alice.post('/portal/plan-requests', { plan: 'business', note: 'Black Friday' })).statusCode,
      303,
    )
    h.clock.advance(60_000)
    const request = await h.services.planRequests!.pendingOf(accountId)
    await h.services.planRequests!.approve({ id: request!.id, actor: operator })
    h.clock.advance(60_000)
    await h.services.accounts.suspend({ accountId, reason: 'Unpaid invoice 2027-04', actor: shell })
    await h.services.accounts.reactivate({ accountId, actor: operator })

    const page = await alice.get('/portal/activity')
    assert.equal(page.statusCode, 200)
    assert.match(
      page.body,
      /<a href="\/portal\/activity" aria-current="page">Activity<\/a>/,
      'in the navigation, marked',
    )
    const rows = rowsOf(page.body)
    const what = rows.map((r) => r[1])
    assert.deepEqual(
      what.slice(0, 5),
      ['Account reactivated', 'Account suspended', 'Plan changed', 'Plan request approved', 'Higher plan requested'],
      'newest first',
    )
    assert.ok(what.includes('Key created'))
    assert.ok(what.includes('Email address verified'))
    assert.ok(what.includes('Account created'))

    const row = (action: string) => rows.find((r) => r[1] === action)!
    assert.deepEqual(row('Account reactivated').slice(3), ['Operator', '—'])
    assert.deepEqual(
      row('Account suspended').slice(2),
      ['Reason: Unpaid invoice 2027-04', 'Operator', '—'],
      'the command line is an operator too',
    )
    assert.deepEqual(row('Plan changed').slice(2), [
      'From free (60 per minute, 1,000 per day) to business (1,000 per minute, 100,000 per day)',
      'Operator',
      '—',
    ])
    assert.deepEqual(row('Higher plan requested').slice(2), [
      'The business plan, from free | Note: Black Friday',
      'alice@example.com',
      '127.0.0.1',
    ])
    assert.deepEqual(row('Key created').slice(2, 4), [
      '"production server" (' + (await h.services.accounts.listApiKeys(accountId))[0]!.prefix + '…)',
      'alice@example.com',
    ])
    assert.equal(row('Key created')[4], '127.0.0.1', 'its own changes show the address they came from')
    assert.match(rows[0]![0]!, /^2027-05-02 08:32 UTC$/)

    // Nothing names an operator or the shell's user.
    for (const secret of ['night-shift@ops.example', '203.0.113.77', 'op_7', 'rootuser42'])
      assert.ok(!page.body.includes(secret), secret)
  },
)

test("never another account's entries, and only for a signed-in integrator", async (t) => {
  const h = await portalHarness(t, { now: T0 })
  const alice = await signedUpUser(h, 'alice@example.com')
  const bob = await signedUpUser(h, 'bob@example.com')
  const bobId = await accountOf(h, 'bob@example.com')
  await createKeyInPortal(bob, 'bobs hidden key')
  await h.services.accounts.setPlan({ id: bobId, plan: 'pro', actor: operator })
  const other = await h.newAccount({ name: 'cli-made' })
  await h.services.accounts.revokeApiKey(other.keyId, { actor: shell })

  const page = await alice.get('/portal/activity')
  assert.equal(page.statusCode, 200)
  for (const foreign of [
    'bob@example.com',
    'bobs hidden key',
    bobId,
    other.accountId,
    other.keyId,
    'Plan changed',
    'Key revoked',
  ])
    assert.ok(!page.body.includes(foreign), foreign)
  assert.ok(
    rowsOf(page.body).every((r) => r[3] === 'alice@example.com'),
    "only alice's own entries",
  )
  // Paging from one of Bob's entries' numbers still reads Alice's entries only.
  const [bobsNewest] = await h.services.audit.list({ accountId: bobId, limit: 1 })
  const paged = await alice.get(`/portal/activity?before=${BigInt(bobsNewest!.seq) + 1n}`)
  assert.ok(!paged.body.includes('bob@example.com'))

  const stranger = client(h.app)
  const anonymous = await stranger.get('/portal/activity')
  assert.equal(anonymous.statusCode, 303)
  assert.equal(anonymous.headers.location, '/portal/login?next=%2Fportal%2Factivity')
})

test('the activity page is paged, newest first; an unusable page number shows the newest entries', async (t) => {
  const h = await portalHarness(t, { now: T0 })
  const alice = await signedUpUser(h, 'pages@example.com')
  const accountId = await accountOf(h, 'pages@example.com')
  const own: AuditActor = { kind: 'account', accountId, email: 'pages@example.com', address: '198.51.100.4' }
  const before = (await h.services.audit.list({ accountId, limit: 100 })).length
  for (let i = 0; i < ACTIVITY_PAGE_SIZE + 5; i++) {
    h.clock.advance(1000)
    await h.services.accounts.createApiKey({
      accountId,
      environment: keyEnvironment(h.config.environment),
      name: `key ${i}`,
      actor: own,
    })
  }
  const first = await alice.get('/portal/activity')
  const rows = rowsOf(first.body)
  assert.equal(rows.length, ACTIVITY_PAGE_SIZE)
  assert.match(rows[0]![2]!, /^"key 54"/)
  assert.equal(rows[0]![4], '198.51.100.4')
  const older = /<a href="\/portal\/activity\?before=(\d+)">Older entries<\/a>/.exec(first.body)
  assert.ok(older, 'a link to older entries')
  const second = await alice.get(`/portal/activity?before=${older[1]}`)
  const rest = rowsOf(second.body)
  assert.equal(rest.length, 5 + before)
  assert.match(rest[0]![2]!, /^"key 4"/)
  assert.doesNotMatch(second.body, /Older entries/)
  assert.match(second.body, /<a href="\/portal\/activity">Newest entries<\/a>/)

  for (const bad of ['abc', '-1', '0', '99999999999999999999999', '1.5']) {
    const page = await alice.get(`/portal/activity?before=${encodeURIComponent(bad)}`)
    assert.equal(page.statusCode, 200, bad)
    assert.match(rowsOf(page.body)[0]![2]!, /^"key 54"/, bad)
  }
})

test('a key given a new expiry reads as the key and its expiry before and after ("never" for none)', async (t) => {
  const h = await portalHarness(t, { now: T0 })
  const alice = await signedUpUser(h, 'expiry@example.com')
  const accountId = await accountOf(h, 'expiry@example.com')
  await createKeyInPortal(alice, 'nightly job')
  const [key] = await h.services.accounts.listApiKeys(accountId)
  await h.services.accounts.setKeyExpiry({ keyId: key!.id, expiresAt: '2027-06-30T12:00:00Z', actor: shell })
  h.clock.advance(60_000)
  await h.services.accounts.setKeyExpiry({ keyId: key!.id, expiresAt: null, actor: operator })

  const rows = rowsOf((await alice.get('/portal/activity')).body)
  const changed = rows.filter((r) => r[1] === 'Key expiry changed')
  assert.deepEqual(
    changed.map((r) => r.slice(2, 4)),
    [
      [`"nightly job" (${key!.prefix}…) | Expiry from 2027-06-30 12:00 UTC to never`, 'Operator'],
      [`"nightly job" (${key!.prefix}…) | Expiry from never to 2027-06-30 12:00 UTC`, 'Operator'],
    ],
  )
})
