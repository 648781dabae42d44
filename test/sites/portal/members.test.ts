// Teams through the portal's pages (issue 38), on the pass's backend: invitations (a new person signs up from the
// link, an existing user of another account accepts and switches), roles enforced on replayed POSTs, removal ending
// the member's session at once while the key they made keeps working, the last owner, unusable links, the daily cap.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { client, GOOD_PASSWORD, linkIn, mails, portalHarness, signedUpUser, type Client } from '../../helpers/portal.js'

type H = Awaited<ReturnType<typeof portalHarness>>

async function invite(h: H, owner: Client, email: string, role: string) {
  await owner.get('/portal/members')
  const sent = await owner.post('/portal/members/invite', { email, role })
  assert.equal(sent.statusCode, 303, sent.body)
  const mail = (await mails(h, h.outbox)).findLast((m) => m.includes('/portal/invitations/') && m.includes(email))
  assert.ok(mail, 'the invitation is mailed')
  return new URL(linkIn(mail, '/portal/invitations/')).pathname
}

async function signUpFromLink(h: H, path: string) {
  const c = client(h.app)
  const page = await c.get(path)
  assert.equal(page.statusCode, 200)
  assert.match(page.body, /Sign up and join/)
  const joined = await c.post(`${path}/signup`, { password: 'a long and quite unusual passphrase' })
  assert.equal(joined.statusCode, 303, joined.body)
  return c
}

const keyCount = async (h: H, accountId: string) =>
  (await h.services.accounts.listApiKeys(accountId)).filter((k) => k.revokedAt === null).length

test('invite a developer (new) and a viewer (existing user); roles hold; removal ends the session', async (t) => {
  const h = await portalHarness(t)
  const owner = await signedUpUser(h, 'owner@example.com')
  const team = (await h.services.portal!.repo.findUserByEmail('owner@example.com'))!.account_id
  const devLink = await invite(h, owner, 'dev@example.com', 'developer')
  const dev = await signUpFromLink(h, devLink)
  assert.match((await dev.get('/portal/members')).body, /dev@example.com/)

  const viewer = await signedUpUser(h, 'viewer@example.com')
  const viewerLink = await invite(h, owner, 'viewer@example.com', 'viewer')
  assert.match((await viewer.get(viewerLink)).body, /Accept invitation/)
  assert.equal((await viewer.post(viewerLink, {})).statusCode, 303)
  assert.equal((await viewer.get('/portal/usage')).statusCode, 200, 'a viewer sees usage')
  await viewer.get('/portal/keys')
  const refused = await viewer.post('/portal/keys', { name: 'viewer key', expires: '' })
  assert.equal(refused.statusCode, 403, 'a viewer cannot create a key')
  assert.equal(await keyCount(h, team), 0)

  await dev.get('/portal/keys/new')
  assert.equal((await dev.post('/portal/keys', { name: 'dev key', expires: '' })).statusCode, 303)
  assert.equal(await keyCount(h, team), 1)
  await dev.get('/portal/usage')
  assert.equal((await dev.post('/portal/plan-requests', { plan: 'pro', note: '' })).statusCode, 403)

  const devId = (await h.services.portal!.repo.findUserByEmail('dev@example.com'))!.id
  await owner.get('/portal/members')
  assert.equal((await owner.post(`/portal/members/${devId}/remove`, {})).statusCode, 303)
  assert.equal((await dev.get('/portal/keys')).statusCode, 303, "the removed member's session is over")
  assert.equal(await keyCount(h, team), 1, 'the key stays with the account')
  assert.ok(
    (await mails(h, h.outbox)).some((m) => /^Subject: You were removed from/m.test(m) && m.includes('dev@example.com')),
  )

  const ownerId = (await h.services.portal!.repo.findUserByEmail('owner@example.com'))!.id
  assert.equal((await owner.post('/portal/members/leave', {})).statusCode, 409, 'the last owner cannot leave')
  const demoted = await owner.post(`/portal/members/${ownerId}/role`, { role: 'viewer' })
  assert.equal(demoted.statusCode, 409, 'nor be demoted')
  assert.match(demoted.body, /always has an owner/)
  const actions = (await h.services.audit.list({ accountId: team, limit: 50 })).map(
    (e) => `${e.action} ${e.actor.email}`,
  )
  assert.ok(actions.includes('member.removed owner@example.com'))
  assert.ok(actions.includes('key.created dev@example.com'), 'the entry names the member who acted')
})

test('the viewer of a team switches between accounts; ids of another account are 404', async (t) => {
  const h = await portalHarness(t)
  const owner = await signedUpUser(h, 'owner@example.com')
  const viewer = await signedUpUser(h, 'viewer@example.com')
  const own = (await h.services.portal!.repo.findUserByEmail('viewer@example.com'))!.account_id
  const team = (await h.services.portal!.repo.findUserByEmail('owner@example.com'))!.account_id
  const link = await invite(h, owner, 'viewer@example.com', 'viewer')
  await viewer.get(link)
  await viewer.post(link, {})
  await viewer.get('/portal/keys')
  assert.equal((await viewer.post('/portal/members/switch', { account: own })).statusCode, 303)
  await viewer.get('/portal/keys/new')
  assert.equal((await viewer.post('/portal/keys', { name: 'mine', expires: '' })).statusCode, 303, 'owner of their own')
  assert.equal(await keyCount(h, own), 1)
  assert.equal((await viewer.post('/portal/members/switch', { account: team })).statusCode, 303)
  assert.equal((await viewer.post('/portal/members/switch', { account: 'acct_0000' })).statusCode, 404)
})

test('an expired, revoked or used link gets a clear page; the 51st invitation of a day is refused', async (t) => {
  const h = await portalHarness(t)
  const owner = await signedUpUser(h, 'owner@example.com')
  const used = await invite(h, owner, 'one@example.com', 'viewer')
  await signUpFromLink(h, used)
  const again = await client(h.app).get(used)
  assert.equal(again.statusCode, 400)
  assert.match(again.body, /expired, was revoked, was replaced by a newer one or was already used/)

  const revoked = await invite(h, owner, 'two@example.com', 'viewer')
  const [pending] = await h.services.teams.pendingInvitations(
    (await h.services.portal!.repo.findUserByEmail('owner@example.com'))!.account_id,
  )
  await owner.get('/portal/members')
  assert.equal((await owner.post(`/portal/members/invitations/${pending!.id}/revoke`, {})).statusCode, 303)
  assert.equal((await client(h.app).get(revoked)).statusCode, 400)

  const late = await invite(h, owner, 'three@example.com', 'viewer')
  await owner.get('/portal/members')
  const member = await owner.post('/portal/members/invite', { email: 'one@example.com', role: 'viewer' })
  assert.equal(member.statusCode, 400)
  assert.match(member.body, /already a member/)
  // Three invitations were sent above (used, revoked, waiting): 47 more make the day's 50.
  for (let i = 0; i < 47; i++)
    assert.equal(
      (await owner.post('/portal/members/invite', { email: `p${i}@example.com`, role: 'viewer' })).statusCode,
      303,
    )
  const capped = await owner.post('/portal/members/invite', { email: 'p47@example.com', role: 'viewer' })
  assert.equal(capped.statusCode, 429)
  assert.match(capped.body, /50 invitations in the last 24 hours/)
  h.clock.advance(7 * 86_400_000 + 1000)
  assert.equal((await client(h.app).get(late)).statusCode, 400, 'a week later the link is dead')
})

test("an account's deletion keeps its founder's log-in while they are a member elsewhere", async (t) => {
  const h = await portalHarness(t)
  const founder = await signedUpUser(h, 'founder@example.com')
  const other = await signedUpUser(h, 'other@example.com')
  const otherTeam = (await h.services.portal!.repo.findUserByEmail('other@example.com'))!.account_id
  const link = await invite(h, other, 'founder@example.com', 'owner')
  await founder.get(link)
  assert.equal((await founder.post(link, {})).statusCode, 303)
  const founderAccount = (await h.services.portal!.repo.findUserByEmail('founder@example.com'))!.account_id
  await h.services.accounts.deleteAccount(founderAccount, { actor: { kind: 'cli', user: 'test' } })
  const members = await h.services.teams.members(otherTeam)
  assert.deepEqual(members.map((m) => [m.email, m.role]).sort(), [
    ['founder@example.com', 'owner'],
    ['other@example.com', 'owner'],
  ])
  const again = client(h.app)
  await again.get('/portal/login')
  assert.equal(
    (await again.post('/portal/login', { email: 'founder@example.com', password: GOOD_PASSWORD })).statusCode,
    303,
  )
  assert.equal((await again.get('/portal/members')).statusCode, 200, 'working in the account they are still in')

  // Alone in nothing else, a founder goes with the account, as before teams.
  const lone = await signedUpUser(h, 'lone@example.com')
  const loneAccount = (await h.services.portal!.repo.findUserByEmail('lone@example.com'))!.account_id
  await h.services.accounts.deleteAccount(loneAccount, { actor: { kind: 'cli', user: 'test' } })
  assert.equal(await h.services.portal!.repo.findUserByEmail('lone@example.com'), undefined)
  assert.equal((await lone.get('/portal/keys')).statusCode, 303)
})

test('an account requiring two-factor log-in sends a member without one to set it up, refusing the rest', async (t) => {
  const h = await portalHarness(t)
  const owner = await signedUpUser(h, 'owner@example.com')
  const link = await invite(h, owner, 'dev@example.com', 'developer')
  const dev = await signUpFromLink(h, link)
  await owner.get('/portal/members')
  assert.equal((await owner.post('/portal/members/two-factor', { required: 'yes' })).statusCode, 303)
  const sent = await dev.get('/portal/keys')
  assert.equal(sent.statusCode, 303)
  assert.equal(sent.headers.location, '/portal/account?done=two-factor-required')
  assert.match((await dev.get(sent.headers.location as string)).body, /requires two-factor log-in/)
  const refused = await dev.post('/portal/keys', { name: 'k', expires: '' })
  assert.equal(refused.statusCode, 403)
  const devUser = (await h.services.portal!.repo.findUserByEmail('dev@example.com'))!
  assert.equal((await dev.post('/portal/account/app', {})).statusCode, 200, 'setting one up is allowed')
  const actions = (await h.services.audit.list({ accountId: devUser.account_id, limit: 5 })).map((e) => e.action)
  assert.ok(!actions.includes('key.created'))
})
