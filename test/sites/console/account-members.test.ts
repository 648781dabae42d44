// Teams in the console: the account page lists an account's members (address, role, since when) and its open
// invitations, read-only; the search finds an account by a member's address (any role) and says so, besides the
// member's own account. Through HTTP with signed-in operators of both roles; the users are real portal sign-ups,
// made members through the teams service (an invitation and its acceptance, as the portal's pages do).
import assert from 'node:assert/strict'
import { totpCode } from '../../../src/modules/sign-in/totp.js'
import { test } from 'node:test'
import type { AuditActor } from '../../../src/modules/audit/audit-event.js'
import { emailKeyOf } from '../../../src/kernel/email-address.js'
import type { MemberRole } from '../../../src/db/schema.js'
import { consoleHarness, signedInOperator, type ConsoleHarness } from '../../helpers/console.js'
import { signedUpUser } from '../../helpers/portal.js'
import { tableRows } from '../../helpers/tables.js'

const T0 = Date.parse('2027-03-01T10:00:00Z')
const DAY = 86_400_000

async function userOf(h: ConsoleHarness, email: string): Promise<{ id: string; accountId: string }> {
  const row = await h.handle.db
    .selectFrom('portal_users')
    .select(['id', 'account_id'])
    .where('email_key', '=', emailKeyOf(email))
    .executeTakeFirstOrThrow()
  return { id: row.id, accountId: row.account_id }
}

const actorOf = (accountId: string, email: string): AuditActor => ({ kind: 'account', accountId, email })

/** An invitation from the account's owner to `email` with `role`; its token. */
async function invite(h: ConsoleHarness, owner: { id: string; accountId: string }, email: string, role: MemberRole) {
  const by = await h.services.teams.membership(owner.id, owner.accountId)
  assert.ok(by)
  const members = await h.services.teams.members(owner.accountId)
  const invited = await h.services.teams.invite({
    by,
    email,
    emailKey: emailKeyOf(email),
    role,
    memberEmailKeys: members.map((m) => emailKeyOf(m.email)),
    actor: actorOf(owner.accountId, 'owner@team.example'),
  })
  assert.equal(invited.outcome, 'invited')
  return (invited as { token: string }).token
}

/** A team: owner@team.example owns it, Bob (signed up later) joined as a developer, carol is invited as a viewer. */
async function team(h: ConsoleHarness) {
  await signedUpUser(h, 'owner@team.example')
  h.clock.advance(60_000)
  await signedUpUser(h, 'Bob.Builder@crew.example')
  const owner = await userOf(h, 'owner@team.example')
  const bob = await userOf(h, 'bob.builder@crew.example')
  h.clock.advance(DAY)
  const token = await invite(h, owner, 'Bob.Builder@crew.example', 'developer')
  h.clock.advance(3_600_000)
  const joined = await h.services.teams.accept(
    token,
    { id: bob.id, emailKey: emailKeyOf('bob.builder@crew.example') },
    (id) => actorOf(id, 'Bob.Builder@crew.example'),
  )
  assert.deepEqual(joined, { outcome: 'joined', accountId: owner.accountId })
  await invite(h, owner, 'carol@else.example', 'viewer')
  // Bob has an authenticator app (the page says On, and nothing of it).
  const bobUser = (await h.services.portal!.repo.findUserByEmail('Bob.Builder@crew.example'))!
  const app = (await h.services.twoFactor.startApp(bobUser))!
  const confirmed = await h.services.twoFactor.confirmApp(bobUser, totpCode(app.secret, h.clock.now()), {
    kind: 'system',
  })
  assert.equal(confirmed.outcome, 'confirmed')
  return { owner, bob }
}

/** The page's Members section (from its heading to the Keys heading). */
const membersSection = (body: string) => {
  const start = body.indexOf('<h2 id="members">Members</h2>')
  assert.ok(start > 0, 'the page has a Members section')
  return body.slice(start, body.indexOf('<h2>Keys</h2>', start))
}

test('the account page lists the members, their roles and open invitations, read-only, to both roles', async (t) => {
  const h = await consoleHarness(t, { now: T0 })
  const { owner, bob } = await team(h)
  for (const role of ['support', 'admin'] as const) {
    const operator = await signedInOperator(h, { role })
    const page = await operator.get(`/console/accounts/${owner.accountId}`)
    assert.equal(page.statusCode, 200, page.body)
    // Oldest first: the owner since the sign-up, Bob since he accepted.
    assert.deepEqual(tableRows(page.body, 'members cards').slice(1), [
      ['owner@team.example', 'owner', 'Off', '2027-03-01 10:00 UTC'],
      ['Bob.Builder@crew.example', 'developer', 'On', '2027-03-02 11:01 UTC'],
    ])
    // Bob's invitation was accepted: only Carol's is open (a week from when it was sent).
    assert.deepEqual(tableRows(page.body, 'member-invitations cards').slice(1), [
      ['carol@else.example', 'viewer', '2027-03-02 11:01 UTC', '2027-03-09 11:01 UTC'],
    ])
    const section = membersSection(page.body)
    assert.doesNotMatch(section, /<form|<button/, 'operators do not manage members')
    assert.doesNotMatch(section, /portal\/invitations?\//, 'no invitation link')

    // Bob's own account: he is its only member, with nothing pending.
    const own = await operator.get(`/console/accounts/${bob.accountId}`)
    assert.deepEqual(tableRows(own.body, 'members cards').slice(1), [
      ['Bob.Builder@crew.example', 'owner', 'On', '2027-03-01 10:01 UTC'],
    ])
    assert.match(membersSection(own.body), /No open invitations\./)
  }
})

test('an account made by the CLI has no members; a deleted one has none left', async (t) => {
  const h = await consoleHarness(t, { now: T0 })
  const { accountId } = await h.newAccount({ name: 'batch jobs' })
  const { owner } = await team(h)
  await h.services.accounts.deleteAccount(owner.accountId, { actor: { kind: 'cli', user: 'test' } })
  const operator = await signedInOperator(h, { role: 'support' })
  const cli = membersSection((await operator.get(`/console/accounts/${accountId}`)).body)
  assert.match(cli, /None: the account was made with the CLI \(no portal user\)\./)
  assert.match(cli, /No open invitations\./)
  const deleted = membersSection((await operator.get(`/console/accounts/${owner.accountId}`)).body)
  assert.match(deleted, /None: removed with the account\./)
  assert.match(deleted, /No open invitations\./)
})

test("the search finds an account by a member's address and says why, besides the member's own", async (t) => {
  const h = await consoleHarness(t, { now: T0 })
  const { owner, bob } = await team(h)
  for (const role of ['support', 'admin'] as const) {
    const operator = await signedInOperator(h, { role })
    /** [account id, why it matched] of each row of the results page (the search must not open one account). */
    const matches = async (q: string) => {
      const found = await operator.post('/console/accounts', { q })
      assert.equal(found.statusCode, 200, `${q}: ${found.statusCode} ${String(found.headers.location)}`)
      return tableRows(found.body, 'search-results')
        .slice(1)
        .map((r) => [r[0], r[6]])
        .sort()
    }
    const both = (teamWhy: string, ownWhy: string) =>
      [
        [owner.accountId, teamWhy],
        [bob.accountId, ownWhy],
      ].sort()

    // Part of Bob's address, in any case: his own account by its owner's address, the team's by a member's.
    assert.deepEqual(
      await matches('BUILDER@crew'),
      both("part of a member's address (developer)", 'part of the email; part of the account name'),
    )
    // His whole address: both are exact matches.
    assert.deepEqual(
      await matches('bob.builder@crew.example'),
      both("member's address (developer)", 'email; account name'),
    )
    // The owner's address finds the team once, by its owner (an owner is a member of their own account too).
    const byOwner = await operator.post('/console/accounts', { q: 'owner@team' })
    assert.equal(byOwner.statusCode, 303)
    assert.equal(byOwner.headers.location, `/console/accounts/${owner.accountId}?found=part-email,part-name`)
    // An invited address is no member: nothing matches it.
    const carol = await operator.post('/console/accounts', { q: 'carol@else' })
    assert.equal(carol.statusCode, 200)
    assert.match(carol.body, /No account matches/)
  }
})

test("a member's role is the one in the reason, and a deleted team is found no more", async (t) => {
  const h = await consoleHarness(t, { now: T0 })
  const { owner, bob } = await team(h)
  const operator = await signedInOperator(h, { role: 'support' })
  const by = await h.services.teams.membership(owner.id, owner.accountId)
  assert.ok(by)
  const changed = await h.services.teams.changeRole(by, bob.id, 'admin', actorOf(owner.accountId, 'owner@team.example'))
  assert.equal(changed.outcome, 'done')
  const found = await operator.post('/console/accounts', { q: 'bob.builder' })
  const rows = tableRows(found.body, 'search-results').slice(1)
  assert.deepEqual(rows.find((r) => r[0] === owner.accountId)?.[6], "part of a member's address (admin)")
  await h.services.accounts.deleteAccount(owner.accountId, { actor: { kind: 'cli', user: 'test' } })
  // Only Bob's own account is left: the one match opens its page, by its owner's address.
  const after = await operator.post('/console/accounts', { q: 'bob.builder' })
  assert.equal(after.statusCode, 303)
  assert.equal(after.headers.location, `/console/accounts/${bob.accountId}?found=part-email,part-name`)
})
