// Item 4 of issue 23: no foothold from a sign-up in someone else's name ("pre-account hijacking"). An attacker
// signs up with the victim's address and keeps a session; the victim's own sign-up, or the victim opening the
// mailed link, ends it.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { client, linkIn, mails, portalHarness, tokenOf, type Client } from '../../helpers/portal.js'
import type { Harness } from '../../helpers/harness.js'

const VICTIM = 'victim@example.com'
const ATTACKER_PASSWORD = 'attacker-chosen-harbor-lantern'
const VICTIM_PASSWORD = 'violet-harbor-quartz-lantern'

async function signUpAndLogIn(h: Pick<Harness, 'services'>, c: Client, password: string) {
  await c.get('/portal/signup')
  assert.equal((await c.post('/portal/signup', { email: VICTIM, password })).statusCode, 200)
  // The sign-up itself runs after the answer (same timing whatever the address); a person cannot log in faster.
  await h.services.portal!.mailer.settled()
  await c.get('/portal/login')
  return c.post('/portal/login', { email: VICTIM, password })
}

test(
  'a new sign-up of an unverified address replaces its password, ' + 'ends its sessions and voids older links',
  async (t) => {
    const h = await portalHarness(t)
    const attacker = client(h.app)
    assert.equal((await signUpAndLogIn(h, attacker, ATTACKER_PASSWORD)).statusCode, 303)
    assert.equal((await attacker.get('/portal/keys')).statusCode, 200, 'the attacker is logged in (unverified)')
    const firstLink = linkIn(
      (await mails(h, h.outbox)).findLast((m) => m.includes('/portal/verify/'))!,
      '/portal/verify/',
    )

    h.clock.advance(5 * 60_000)
    const victim = client(h.app)
    await victim.get('/portal/signup')
    assert.equal((await victim.post('/portal/signup', { email: VICTIM, password: VICTIM_PASSWORD })).statusCode, 200)
    const sent = await mails(h, h.outbox)
    assert.equal(sent.length, 2, 'the victim gets a fresh verification link')
    assert.match(sent[1]!, /^Subject: Verify your email address$/m)
    const freshLink = linkIn(sent[1]!, '/portal/verify/')
    assert.notEqual(freshLink, firstLink)

    assert.equal((await attacker.get('/portal/keys')).statusCode, 303, "the attacker's session ended")
    await attacker.get('/portal/login')
    assert.equal(
      (await attacker.post('/portal/login', { email: VICTIM, password: ATTACKER_PASSWORD })).statusCode,
      400,
      "the attacker's password no longer works",
    )
    assert.equal(
      (await victim.post('/portal/verify', { token: tokenOf(firstLink) })).statusCode,
      400,
      'the older link is void',
    )
    assert.equal((await victim.post('/portal/verify', { token: tokenOf(freshLink) })).statusCode, 200)
    await victim.get('/portal/login')
    assert.equal((await victim.post('/portal/login', { email: VICTIM, password: VICTIM_PASSWORD })).statusCode, 303)
  },
)

test('verifying the address ends every session of the account except the browser that verified it', async (t) => {
  const h = await portalHarness(t)
  const attacker = client(h.app)
  assert.equal((await signUpAndLogIn(h, attacker, ATTACKER_PASSWORD)).statusCode, 303)
  // The mailbox's owner opens the link while logged in (in their browser) — and the attacker's session ends.
  const owner = client(h.app)
  await owner.get('/portal/login')
  assert.equal((await owner.post('/portal/login', { email: VICTIM, password: ATTACKER_PASSWORD })).statusCode, 303)
  const link = linkIn((await mails(h, h.outbox)).findLast((m) => m.includes('/portal/verify/'))!, '/portal/verify/')
  await owner.get(new URL(link).pathname)
  assert.equal((await owner.post('/portal/verify', { token: tokenOf(link) })).statusCode, 200)
  assert.equal((await owner.get('/portal/keys')).statusCode, 200, 'the verifying browser stays logged in')
  assert.equal((await attacker.get('/portal/keys')).statusCode, 303, 'every other session ended')
})

test('a verified account is not replaced by a new sign-up: its owner is told, nothing changes', async (t) => {
  const h = await portalHarness(t)
  const owner = client(h.app)
  assert.equal((await signUpAndLogIn(h, owner, VICTIM_PASSWORD)).statusCode, 303)
  const link = linkIn((await mails(h, h.outbox)).findLast((m) => m.includes('/portal/verify/'))!, '/portal/verify/')
  await owner.get(new URL(link).pathname)
  assert.equal((await owner.post('/portal/verify', { token: tokenOf(link) })).statusCode, 200)
  const attacker = client(h.app)
  await attacker.get('/portal/signup')
  assert.equal((await attacker.post('/portal/signup', { email: VICTIM, password: ATTACKER_PASSWORD })).statusCode, 200)
  assert.ok((await mails(h, h.outbox)).some((m) => /^Subject: You already have an account$/m.test(m)))
  assert.equal((await owner.get('/portal/keys')).statusCode, 200, "the owner's session is untouched")
  await attacker.get('/portal/login')
  assert.equal((await attacker.post('/portal/login', { email: VICTIM, password: ATTACKER_PASSWORD })).statusCode, 400)
})
