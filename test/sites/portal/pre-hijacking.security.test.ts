// Item 1 of issue 32: no mailed link outlives a change of who controls the account. The attack: sign up in the
// victim's name, log in (unverified accounts may), ask to move the account to the attacker's address, wait for the
// victim to sign up, verify and make a key, then open the link. Each step is refused or voided here, on both backends.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Harness } from '../../helpers/harness.js'
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

const VICTIM = 'victim@example.com'
const ATTACKER = 'attacker@evil.example'
const ATTACKER_PASSWORD = 'attacker-chosen-harbor-lantern'
const VICTIM_PASSWORD = 'violet-harbor-quartz-lantern'
type H = Harness & { outbox: string }

async function signUp(h: H, c: Client, email: string, password: string) {
  await c.get('/portal/signup')
  assert.equal((await c.post('/portal/signup', { email, password })).statusCode, 200)
  await h.services.portal!.mailer.settled()
}

async function logIn(c: Client, email: string, password: string) {
  await c.get('/portal/login')
  assert.equal((await c.post('/portal/login', { email, password })).statusCode, 303)
}

/** The user's links that would still be accepted (not used, not expired), by purpose. */
async function pendingLinks(h: H, email: string): Promise<string[]> {
  const user = await h.services.portal!.repo.findUserByEmail(email)
  const rows = await h.handle.db
    .selectFrom('portal_tokens')
    .select('purpose')
    .where('user_id', '=', user!.id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', h.clock.now())
    .execute()
  return rows.map((r) => r.purpose).sort()
}

test(
  'pre-hijacking: an unverified account cannot ask to ' + 'change its address, and its settings page offers no form',
  async (t) => {
    const h = await portalHarness(t)
    const attacker = client(h.app)
    await signUp(h, attacker, VICTIM, ATTACKER_PASSWORD)
    await logIn(attacker, VICTIM, ATTACKER_PASSWORD)
    const settings = await attacker.get('/portal/account')
    assert.equal(settings.statusCode, 200)
    assert.doesNotMatch(settings.body, /action="\/portal\/account\/email"/, 'no change-of-address form')
    assert.match(settings.body, /not verified yet/)
    const sentBefore = (await mails(h, h.outbox)).length
    const asked = await attacker.post('/portal/account/email', { new_email: ATTACKER, password: ATTACKER_PASSWORD })
    assert.equal(asked.statusCode, 403)
    assert.match(asked.body, /not verified yet/)
    const sent = await mails(h, h.outbox)
    assert.equal(sent.length, sentBefore, 'nothing is mailed')
    assert.ok(!sent.some((m) => m.includes(ATTACKER)), 'no link reaches the attacker')
    assert.deepEqual(await pendingLinks(h, VICTIM), ['verify'])
  },
)

test(
  'pre-hijacking: a change-of-address link of the unverified ' + 'sign-up dies when the owner signs up and verifies',
  async (t) => {
    const h = await portalHarness(t)
    const attacker = client(h.app)
    await signUp(h, attacker, VICTIM, ATTACKER_PASSWORD)
    // A link such as an earlier version mailed to the attacker (this one refuses to issue it over HTTP).
    const squatter = await h.services.portal!.repo.findUserByEmail(VICTIM)
    const attackerToken = await h.services.portal!.settings.issueEmailToken(squatter!.id, ATTACKER, 24 * 3600_000)
    assert.ok(attackerToken)
    assert.equal(
      (await attacker.get(`/portal/account/email/${attackerToken}`)).statusCode,
      200,
      'the link works before the owner comes',
    )

    h.clock.advance(5 * 60_000)
    const victim = client(h.app)
    await signUp(h, victim, VICTIM, VICTIM_PASSWORD)
    assert.deepEqual(await pendingLinks(h, VICTIM), ['verify'], "the owner's sign-up voided the attacker's link")
    const link = linkIn((await mails(h, h.outbox)).findLast((m) => m.includes('/portal/verify/'))!, '/portal/verify/')
    await victim.get(new URL(link).pathname)
    assert.equal((await victim.post('/portal/verify', { token: tokenOf(link) })).statusCode, 200)
    await logIn(victim, VICTIM, VICTIM_PASSWORD)
    await victim.get('/portal/keys')
    assert.equal((await victim.post('/portal/keys', { name: 'production', expires: '' })).statusCode, 303)

    await attacker.get('/portal/login')
    const opened = await attacker.post(`/portal/account/email/${attackerToken}`, {})
    assert.equal(opened.statusCode, 400, 'the old link no longer works')
    assert.equal(
      (await h.services.portal!.repo.findUserByEmail(VICTIM))?.email,
      VICTIM,
      'the account keeps its address',
    )
    assert.equal(await h.services.portal!.repo.findUserByEmail(ATTACKER), undefined)
    await logIn(client(h.app), VICTIM, VICTIM_PASSWORD)
  },
)

test(
  'verifying the address voids every other pending ' + 'link of the user, a change-of-address link included',
  async (t) => {
    const h = await portalHarness(t)
    const owner = client(h.app)
    await signUp(h, owner, VICTIM, VICTIM_PASSWORD)
    const user = await h.services.portal!.repo.findUserByEmail(VICTIM)
    const emailToken = await h.services.portal!.settings.issueEmailToken(user!.id, ATTACKER, 24 * 3600_000)
    await owner.get('/portal/reset-request')
    await owner.post('/portal/reset-request', { email: VICTIM })
    const sent = await mails(h, h.outbox)
    const reset = linkIn(sent.findLast((m) => m.includes('/portal/reset/'))!, '/portal/reset/')
    assert.deepEqual(await pendingLinks(h, VICTIM), ['email', 'reset', 'verify'])
    const verify = linkIn(sent.find((m) => m.includes('/portal/verify/'))!, '/portal/verify/')
    await owner.get(new URL(verify).pathname)
    assert.equal((await owner.post('/portal/verify', { token: tokenOf(verify) })).statusCode, 200)
    assert.deepEqual(await pendingLinks(h, VICTIM), [])
    assert.equal((await owner.get(new URL(reset).pathname)).statusCode, 400, 'the reset link is void')
    assert.equal(
      (await owner.get(`/portal/account/email/${emailToken}`)).statusCode,
      400,
      'the change-of-address link is void',
    )
  },
)

test('a password reset voids every other pending link, and a password change does too', async (t) => {
  const h = await portalHarness(t)
  const owner = client(h.app)
  await signUp(h, owner, VICTIM, VICTIM_PASSWORD)
  await owner.get('/portal/reset-request')
  await owner.post('/portal/reset-request', { email: VICTIM })
  const reset = linkIn((await mails(h, h.outbox)).findLast((m) => m.includes('/portal/reset/'))!, '/portal/reset/')
  assert.deepEqual(await pendingLinks(h, VICTIM), ['reset', 'verify'])
  await owner.get(new URL(reset).pathname)
  assert.equal((await owner.post('/portal/reset', { token: tokenOf(reset), password: GOOD_PASSWORD })).statusCode, 200)
  assert.deepEqual(await pendingLinks(h, VICTIM), [], 'the verify link died with the reset')

  // A password change from the settings page: the verify link sent again after it is voided too.
  const other = await signedUpUser(h, 'other@example.com')
  const user = await h.services.portal!.repo.findUserByEmail('other@example.com')
  await h.services.portal!.repo.issueToken(user!.id, 'reset', 3600_000)
  await h.services.portal!.settings.issueEmailToken(user!.id, 'new@example.com', 24 * 3600_000)
  await other.get('/portal/account')
  assert.equal(
    (await other.post('/portal/account/password', { current_password: GOOD_PASSWORD, new_password: VICTIM_PASSWORD }))
      .statusCode,
    303,
  )
  assert.deepEqual(await pendingLinks(h, 'other@example.com'), [])
})

test('when a change of address completes, the old address is told, with what to do if it was not them', async (t) => {
  const h = await portalHarness(t)
  const owner = await signedUpUser(h, 'old@example.com')
  await owner.get('/portal/account')
  assert.equal(
    (await owner.post('/portal/account/email', { new_email: 'new@example.com', password: GOOD_PASSWORD })).statusCode,
    200,
  )
  const link = linkIn(
    (await mails(h, h.outbox)).find((m) => m.includes('/portal/account/email/'))!,
    '/portal/account/email/',
  )
  await owner.get(new URL(link).pathname)
  assert.equal((await owner.post(new URL(link).pathname, {})).statusCode, 200)
  const told = (await mails(h, h.outbox)).filter((m) => /^Subject: Your email address was changed$/m.test(m))
  assert.equal(told.length, 1)
  assert.match(told[0]!, /^To: old@example\.com$/m)
  assert.match(
    told[0]!.replace(/=\r?\n/g, '').replace(/\r?\n/g, ' '),
    /changed to new@example\.com.*If this was not you/,
  )
})
