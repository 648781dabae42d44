// Teams in Chromium (issue 38), three people in three browser contexts. The owner invites a developer and a viewer
// from the members page; the developer, new to the portal, signs up from the mailed link ("Sign up and join"),
// lands in the team's account and creates a key there; the viewer, logged in to their own account, accepts with
// "Accept invitation", switches to their own account and back, sees Usage and the keys but no Create key, Roll or
// Revoke, and a key creation replayed from the page with its CSRF token is refused (403, nothing made). The owner
// removes the developer: the developer's page, reloaded, is the log-in page, and the key made in the team still
// answers the API. The last owner's "Leave this account" is refused (409); a revoked link and a used one get the page
// saying the link is unusable. axe-core finds no serious or critical violation and nothing scrolls sideways at 1100
// and 375 px on the members page, both variants of the invitation page and a viewer's 403 page. Screenshots
// `members-*` and `invitation-*` go to PORTAL_SCREENSHOTS when it is set (docs/portal/members.png is
// `members-desktop`, members-phone.png `members-phone`).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Locator, Page, Response } from 'playwright-core'
import { checkBothWidths, launchChromium, pageProblems, signUpInBrowser, VIEWPORTS } from '../../helpers/browser.js'
import { GOOD_PASSWORD, linkIn, mails, portalHarness } from '../../helpers/portal.js'

const OWNER = 'team-owner@example.com'
const DEV = 'team-dev@example.com'
const VIEWER = 'team-viewer@example.com'
const OPEN = 'team-admin@example.com'
const REVOKED = 'team-revoked@example.com'
const UNUSABLE = 'This invitation link has expired, was revoked, was replaced by a newer one or was already used.'
const LAST_OWNER = 'An account always has an owner: make another member owner first.'

test('teams in Chromium: invited, signed up or accepted from the link, switched, a viewer refused, a member ' +
  'removed, the last owner kept, dead links; axe at 1100 and 375 px', {
  timeout: 120_000,
}, async (t) => {
  const browser = await launchChromium(t)
  const h = await portalHarness(t, { listen: true, ownOrigin: true })
  const base = h.baseUrl
  const newPage = async () => (await browser.newContext({ viewport: VIEWPORTS[0] })).newPage()
  const owner = await newPage()
  const viewer = await newPage()
  const dev = await newPage()
  const problems = [owner, viewer, dev].map((p) => pageProblems(p))
  /** Clicks and waits for the page the click leads to (the previous one may look the same); its answer. */
  const navigate = async (page: Page, target: Locator): Promise<Response> => {
    const loaded = page.waitForEvent('load')
    const answered = page.waitForResponse((r) => r.request().isNavigationRequest() && r.frame() === page.mainFrame())
    await target.click()
    const [response] = await Promise.all([answered, loaded])
    return response
  }
  const heading = (page: Page, name: string) => page.getByRole('heading', { name, exact: true, level: 1 }).waitFor()
  /** The path of the invitation link mailed to `email` last. */
  const invitationLink = async (email: string) => {
    const mail = (await mails(h, h.outbox)).findLast(
      (m) => m.includes(`To: ${email}`) && m.includes(`Subject: You are invited to ${OWNER} on Petstore`),
    )
    assert.ok(mail, `an invitation mailed to ${email}`)
    return new URL(linkIn(mail, '/portal/invitations/')).pathname
  }
  const invite = async (email: string, role: string) => {
    await owner.getByLabel('Email').fill(email)
    await owner.getByLabel('Role', { exact: true }).selectOption({ label: role })
    await navigate(owner, owner.getByRole('button', { name: 'Send invitation' }))
    await owner.getByText('The invitation was mailed. It works once, for 7 days.').waitFor()
  }
  const currentAccount = (page: Page) => page.locator('#switch-account option:checked').innerText()

  // 1. The owner signs up; the viewer already has a log-in and an account of their own.
  const teamId = await signUpInBrowser(owner, h, h.outbox, OWNER, GOOD_PASSWORD)
  const viewersOwn = await signUpInBrowser(viewer, h, h.outbox, VIEWER, GOOD_PASSWORD)
  await navigate(owner, owner.getByRole('link', { name: 'Members', exact: true }))
  await heading(owner, 'Members')
  await invite(DEV, 'Developer')
  await invite(VIEWER, 'Viewer')
  const invitations = owner.getByRole('table').filter({ has: owner.getByRole('columnheader', { name: 'Address' }) })
  assert.match(await invitations.getByRole('row', { name: new RegExp(DEV) }).innerText(), /Developer/)
  assert.match(await invitations.getByRole('row', { name: new RegExp(VIEWER) }).innerText(), /Viewer/)
  const devLink = await invitationLink(DEV)
  const viewerLink = await invitationLink(VIEWER)

  // 2. The developer, new to the portal, signs up from the link and lands in the team's account; makes a key there.
  assert.equal((await dev.goto(base + devLink))?.status(), 200)
  await dev.getByText(`You are invited to the account ${OWNER} as Developer.`).waitFor()
  await checkBothWidths(dev, 'invitation-signup')
  await dev.getByLabel('Password').fill(GOOD_PASSWORD)
  await navigate(dev, dev.getByRole('button', { name: 'Sign up and join' }))
  await heading(dev, 'API keys')
  assert.equal(await currentAccount(dev), `${OWNER} (Developer)`, 'working in the team')
  await navigate(dev, dev.getByRole('button', { name: 'Create key', exact: true }))
  await dev.getByLabel('Key name').fill('team deploys')
  await navigate(dev, dev.getByRole('button', { name: 'Create', exact: true }))
  await dev.waitForURL(/\/portal\/keys\/key_[0-9a-f]+\/created$/)
  const secret = (await dev.locator('#secret').textContent())!.trim()
  const teamKeys = async () => (await h.services.accounts.listApiKeys(teamId)).map((k) => k.name)
  assert.deepEqual(await teamKeys(), ['team deploys'], 'the key is the team account’s')
  await dev.goto(`${base}/portal/keys`)

  // 3. The viewer, logged in to their own account, accepts; switches to their own account and back.
  assert.equal((await viewer.goto(base + viewerLink))?.status(), 200)
  await viewer.getByText(`You are invited to the account ${OWNER} as Viewer.`).waitFor()
  await checkBothWidths(viewer, 'invitation-accept')
  await navigate(viewer, viewer.getByRole('button', { name: 'Accept invitation' }))
  await heading(viewer, 'API keys')
  assert.equal(await currentAccount(viewer), `${OWNER} (Viewer)`)
  await viewer.getByLabel('Account', { exact: true }).selectOption({ label: `${VIEWER} (Owner)` })
  await navigate(viewer, viewer.getByRole('button', { name: 'Switch', exact: true }))
  await heading(viewer, 'API keys')
  assert.equal(await currentAccount(viewer), `${VIEWER} (Owner)`)
  assert.equal(await viewer.getByRole('cell', { name: 'team deploys' }).count(), 0, 'their own account: no team key')
  await viewer.getByRole('button', { name: 'Create key', exact: true }).waitFor()
  await viewer.getByLabel('Account', { exact: true }).selectOption({ label: `${OWNER} (Viewer)` })
  await navigate(viewer, viewer.getByRole('button', { name: 'Switch', exact: true }))
  await heading(viewer, 'API keys')
  assert.equal(await currentAccount(viewer), `${OWNER} (Viewer)`)

  // In the team: the keys listed without a control, Usage open, the replayed creation refused.
  await viewer.getByText('team deploys').waitFor()
  for (const name of ['Create key', 'Roll', 'Revoke'])
    assert.equal(await viewer.getByRole('button', { name }).count(), 0, `a viewer has no ${name}`)
  await navigate(viewer, viewer.getByRole('link', { name: 'Usage', exact: true }))
  await heading(viewer, 'Usage')
  const csrf = await viewer.locator('input[name="_csrf"]').first().inputValue()
  const replayed = await viewer.evaluate(
    async ([token]) => {
      const body = new URLSearchParams({ _csrf: token!, name: 'replayed', expires: '' })
      const response = await fetch('/portal/keys', { method: 'POST', body, redirect: 'manual' })
      return { status: response.status, text: await response.text() }
    },
    [csrf],
  )
  assert.equal(replayed.status, 403, 'a viewer’s key creation, replayed with their CSRF token')
  assert.match(replayed.text, /Your role in this account \(Viewer\) cannot do this\. Nothing was changed/)
  assert.deepEqual(await teamKeys(), ['team deploys'], 'nothing made')
  assert.equal((await viewer.goto(`${base}/portal/keys/new`))?.status(), 403)
  await heading(viewer, 'Not allowed')
  await checkBothWidths(viewer, 'members-viewer-refused')
  assert.ok(!(await h.services.accounts.listApiKeys(viewersOwn)).length, 'nothing made in their own account either')

  // The owner's page: three members, one open invitation (another revoked: its link is dead).
  await invite(OPEN, 'Admin')
  await invite(REVOKED, 'Developer')
  const revokedLink = await invitationLink(REVOKED)
  await navigate(owner, owner.getByRole('button', { name: `Revoke the invitation to ${REVOKED}` }))
  await owner.getByText('The invitation was revoked: its link no longer works.').waitFor()
  await owner.goto(`${base}/portal/members`)
  const members = owner.getByRole('table').filter({ has: owner.getByRole('columnheader', { name: 'Member' }) })
  assert.equal(await members.locator('tbody tr').count(), 3)
  assert.match(await members.getByRole('row', { name: new RegExp(DEV) }).innerText(), /Developer/)
  assert.match(await members.getByRole('row', { name: new RegExp(VIEWER) }).innerText(), /Viewer/)
  assert.match(await members.getByRole('row', { name: new RegExp(OWNER) }).innerText(), /Owner/)
  assert.equal(await invitations.locator('tbody tr').count(), 1)
  assert.match(await invitations.locator('tbody tr').innerText(), new RegExp(`${OPEN}\\s+Admin`))
  await checkBothWidths(owner, 'members')

  // 4. The owner removes the developer: their page, reloaded, is the log-in page; the team's key still works.
  await navigate(owner, owner.getByRole('button', { name: `Remove ${DEV}`, exact: true }))
  await owner.getByText('The member was removed and their sessions in this account ended.').waitFor()
  assert.equal(await members.locator('tbody tr').count(), 2)
  await dev.reload()
  await heading(dev, 'Log in')
  assert.ok((await mails(h, h.outbox)).some((m) => m.includes(`Subject: You were removed from ${OWNER} on Petstore`)))
  const api = await fetch(`${base}/v1/pets`, { headers: { authorization: `Bearer ${secret}` } })
  assert.equal(api.status, 200, 'the key belongs to the account, not to the member who made it')

  // 5. The last owner cannot leave.
  assert.equal((await navigate(owner, owner.getByRole('button', { name: 'Leave this account' }))).status(), 409)
  await heading(owner, 'Not changed')
  await owner.getByText(LAST_OWNER).waitFor()

  // 6. A revoked link and a used link: the page that says so.
  for (const link of [revokedLink, devLink]) {
    assert.equal((await dev.goto(base + link))?.status(), 400, link)
    await dev.getByText(UNUSABLE).waitFor()
    assert.equal(
      await dev
        .getByRole('button')
        .filter({ hasText: /Accept|Sign up/ })
        .count(),
      0,
    )
  }
  assert.deepEqual(problems, [[], [], []], 'no script error, nothing blocked by the CSP')
})
