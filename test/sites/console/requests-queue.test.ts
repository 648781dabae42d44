// /console/requests under a flood (issue 32, item 2): the waiting requests come 50 a page, oldest first, with their
// total and a `Next page` link (a keyset: the link names the last request shown, so a decision meanwhile moves
// nothing), so a real request behind a flood is found; a never-verified owner and an account made less than 7 days
// ago are marked in words. The flood is made as the portal took it before it asked for a verified address.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { testActor } from '../../helpers/actors.js'
import { consoleHarness, signedInOperator } from '../../helpers/console.js'
import { GOOD_PASSWORD, signedUpUser } from '../../helpers/portal.js'
import { unverifiedSignUp } from './account-support.js'

const T0 = Date.parse('2027-03-01T10:00:00Z')
const DAY = 86_400_000

function waitingOf(body: string): string {
  const start = body.indexOf('<h2>Waiting for a decision</h2>')
  assert.ok(start >= 0, 'no waiting section')
  return body.slice(start, body.indexOf('<h2>', start + 4))
}
const rowsOf = (section: string) => [...section.matchAll(/<tr><th scope="row"[^]*?<\/tr>/g)].map((m) => m[0])
const rowWith = (section: string, text: string) =>
  rowsOf(section).find((r) => r.includes(text)) ?? assert.fail(`no row with ${text}`)
const nextLink = (section: string) =>
  /<a href="(\/console\/requests\?after=[^"]+)" rel="next">Next page<\/a>/.exec(section)?.[1]

test(
  'a flood does not hide a real request: ' +
    '50 a page with the total and a next page; unverified and new accounts are marked',
  async (t) => {
    const h = await consoleHarness(t, { now: T0 })
    const real = await signedUpUser(h, 'real@example.com')
    h.clock.advance(30 * DAY)
    const flood = [
      (await unverifiedSignUp(h, 'junk0@example.com')).accountId,
      (await unverifiedSignUp(h, 'junk1@example.com')).accountId,
    ]
    for (let i = 2; i < 52; i++) flood.push((await h.newAccount({ name: `junk ${i}` })).accountId)
    const ids: string[] = []
    for (const accountId of flood) {
      h.clock.advance(1000)
      ids.push(
        (await h.services.planRequests!.create({ accountId, plan: 'enterprise', note: 'flood', actor: testActor })).id,
      )
    }
    h.clock.advance(1000)
    // Its session ended long ago: it logs in again.
    await real.get('/portal/login')
    assert.equal(
      (await real.post('/portal/login', { email: 'real@example.com', password: GOOD_PASSWORD })).statusCode,
      303,
    )
    await real.get('/portal/usage')
    assert.equal((await real.post('/portal/plan-requests', { plan: 'pro', note: 'We launch in May.' })).statusCode, 303)
    const admin = await signedInOperator(h, { role: 'admin' })

    const first = waitingOf((await admin.get('/console/requests')).body)
    assert.match(first, /<caption[^>]*>Requests 1–50 of 53, oldest first\./)
    assert.equal(rowsOf(first).length, 50)
    assert.doesNotMatch(first, /real@example\.com/, 'behind the flood')
    assert.match(
      rowWith(first, 'junk0@example.com'),
      /<td data-label="Email">junk0@example\.com <span class="tag caution">Unverified<\/span><\/td>/,
    )
    assert.match(rowWith(first, 'junk0@example.com'), /<span class="tag caution">New account<\/span>/)
    assert.match(rowWith(first, 'junk 2<'), /<span class="tag caution">New account<\/span>/)
    assert.doesNotMatch(rowWith(first, 'junk 2<'), /Unverified/, 'made by the CLI: no address to verify')
    assert.equal(nextLink(first), `/console/requests?after=${ids[49]}`)
    assert.doesNotMatch(first, /First page/)

    const second = waitingOf((await admin.get(nextLink(first)!)).body)
    assert.match(second, /<caption[^>]*>Requests 51–53 of 53, oldest first\./)
    assert.equal(rowsOf(second).length, 3)
    const row = rowWith(second, 'real@example.com')
    assert.match(row, /We launch in May\./)
    assert.doesNotMatch(row, /class="tag/, 'verified, and made 30 days ago')
    assert.equal(nextLink(second), undefined)
    assert.match(second, /<a href="\/console\/requests">First page<\/a>/)

    // A decision meanwhile: the total says so, and the link already shown still starts after the same request.
    await admin.get(`/console/requests/${ids[0]}/decline`)
    assert.equal((await admin.post(`/console/requests/${ids[0]}/decline`, { reason: 'Spam.' })).statusCode, 303)
    const later = waitingOf((await admin.get(nextLink(first)!)).body)
    assert.match(later, /<caption[^>]*>Requests 50–52 of 52, oldest first\./)
    assert.ok(rowWith(later, 'real@example.com'))

    // A link that names no request is a 400 page, never a 5xx (a control character is refused before the handler).
    for (const after of ['preq_unknown', 'x'.repeat(150)]) {
      const bad = await admin.get(`/console/requests?after=${after}`)
      assert.equal(bad.statusCode, 400, after)
      assert.match(bad.body, /The page link is not valid[^<]*Start again from the first page/)
    }
    assert.equal((await admin.get('/console/requests?after=%00')).statusCode, 400)
  },
)
