// GET /console/accounts/:id: the account as an operator sees it (owner's email and whether verified, plan and
// limits, state, keys, current bans, usage charts, audit entries), the 404 page, and the log-in it needs.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { testActor } from '../../helpers/actors.js'
import { consoleHarness, signedInOperator } from '../../helpers/console.js'
import { client } from '../../helpers/portal.js'
import { api, banKey, buttonsOf, unverifiedSignUp } from './account-support.js'

const T0 = Date.parse('2027-03-01T10:00:00Z')

test(
  'an account made in the portal: email not verified, plan, ' +
    'state, keys, usage, audit entries and every admin control',
  async (t) => {
    const h = await consoleHarness(t, { now: T0 })
    const { accountId } = await unverifiedSignUp(h, 'owner@example.com')
    const key = await h.services.accounts.createApiKey({
      actor: testActor,
      accountId,
      environment: 'test',
      name: 'ci runner',
    })
    h.clock.advance(90_000)
    for (let i = 0; i < 3; i++) assert.equal((await api(h, key.key)).statusCode, 200)
    const admin = await signedInOperator(h, { role: 'admin' })

    const page = await admin.get(`/console/accounts/${accountId}`)
    assert.equal(page.statusCode, 200, page.body)
    const body = page.body
    assert.match(body, /<title>Account owner@example.com · Petstore operator console<\/title>/)
    assert.match(body, new RegExp(`<code>${accountId}</code>`))
    assert.match(body, /owner@example.com \(<strong>not verified<\/strong>\)/)
    assert.match(body, /free: 60 per minute, 1,000 per day/)
    assert.match(body, /This minute<\/th><td>3 of 60 requests/)
    assert.match(body, /<th scope="row">State<\/th><td>Active<\/td>/)
    assert.match(body, /<th scope="row">Created<\/th><td>2027-03-01 10:00 UTC<\/td>/)
    // The key: name, prefix (never the secret), created, last used, expiry, state.
    assert.match(body, /ci runner<\/th><td data-label="Key"><code>[^<]+…<\/code>/)
    assert.ok(body.includes(`${key.prefix}…`))
    assert.ok(!body.includes(key.key), 'the secret is never shown')
    assert.match(body, /data-label="Last used"><span class="day">2027-03-01<\/span> <span class="time">10:01 UTC/)
    assert.match(body, /data-label="Expires">never/)
    assert.match(body, /<span class="state-active">active<\/span>/)
    assert.match(body, /No key is banned now/)
    // The portal's usage charts, for the whole account.
    assert.match(body, /<title id="minute-title">Requests per minute<\/title>/)
    assert.match(body, /<desc id="minute-desc">Requests per minute, last hour, all keys: 3 admitted, 0 refused/)
    assert.match(body, /<title id="day-title">Requests per day<\/title>/)
    // Its audit entries, newest first, and the way to the rest.
    const created = body.indexOf('<th scope="row">account.created</th>')
    const keyCreated = body.indexOf('<th scope="row">key.created</th>')
    assert.ok(created > 0 && keyCreated > 0 && keyCreated < created, 'newest first')
    assert.match(body, /owner@example.com \(integrator\)/)
    assert.ok(body.includes(`href="/console/audit?account=${accountId}"`))
    // Every control of an admin (each only opens its confirmation step).
    assert.deepEqual(
      buttonsOf(body).filter((b) => b !== 'Log out'),
      ['Change plan', 'Suspend', 'Resend verification', 'Delete account', 'Revoke'],
    )
    assert.match(body, /<form method="get" action="\/console\/accounts\/[^"]+\/suspend">/)
  },
)

test(
  'an account made by the CLI has no email; ' + 'a banned key shows with its end and Lift ban; a suspension shows why',
  async (t) => {
    const h = await consoleHarness(t, { now: T0 })
    const { accountId, keyId, key } = await h.newAccount({ name: 'batch jobs', plan: 'pro' })
    await banKey(h, key, 300)
    await h.services.accounts.suspend({ accountId, reason: 'abuse of the API', actor: testActor })
    const admin = await signedInOperator(h, { role: 'admin' })

    const body = (await admin.get(`/console/accounts/${accountId}`)).body
    assert.match(body, /None: the account was made with the CLI/)
    assert.match(body, /pro: 300 per minute, 10,000 per day/)
    assert.match(body, /<strong>Suspended<\/strong> since 2027-03-01 10:00 UTC. Reason: abuse of the API/)
    assert.match(body, /<strong>banned<\/strong> until 2027-03-01 10:15 UTC/)
    assert.match(body, /banned until 2027-03-01 10:15 UTC for sending too many refused requests/)
    assert.match(body, /Requests per minute, last hour, all keys: 300 admitted, 32 refused/)
    assert.ok(body.includes(`action="/console/accounts/${accountId}/keys/${keyId}/unban"`))
    assert.deepEqual(
      buttonsOf(body).filter((b) => b !== 'Log out'),
      ['Change plan', 'Reactivate', 'Delete account', 'Revoke', 'Lift ban'],
    )
    assert.match(
      body,
      /account.suspended<\/th><td>[^<]*<\/td><td><ul class="changes"><li>reason: abuse of the API<\/li>/,
    )
    assert.match(body, /cli \(user test\)/)
  },
)

test('a deleted account shows its state and no controls; an unknown id is a 404 page', async (t) => {
  const h = await consoleHarness(t, { now: T0 })
  const { accountId } = await h.newAccount()
  await h.services.accounts.deleteAccount(accountId, { actor: testActor })
  const admin = await signedInOperator(h, { role: 'admin' })
  const page = await admin.get(`/console/accounts/${accountId}`)
  assert.equal(page.statusCode, 200)
  assert.match(page.body, /<strong>Deleted<\/strong> on 2027-03-01 10:00 UTC/)
  assert.match(page.body, /A deleted account has no actions left/)
  assert.deepEqual(buttonsOf(page.body), ['Log out'])

  for (const id of ['acct_nope', 'x'.repeat(150), '%3Cscript%3E']) {
    const missing = await admin.get(`/console/accounts/${id}`)
    assert.equal(missing.statusCode, 404, id)
    assert.match(missing.headers['content-type'] as string, /^text\/html/)
    assert.match(missing.body, /No such account/)
    assert.ok(!missing.body.includes('<script>'))
  }
})

test('the page needs a signed-in operator: others are sent to log in and come back', async (t) => {
  const h = await consoleHarness(t)
  const { accountId } = await h.newAccount()
  const anonymous = await client(h.app).get(`/console/accounts/${accountId}`)
  assert.equal(anonymous.statusCode, 303)
  assert.equal(
    anonymous.headers.location,
    `/console/login?next=${encodeURIComponent(`/console/accounts/${accountId}`)}`,
  )
  assert.ok(!anonymous.body.includes(accountId))
})
