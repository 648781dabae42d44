// Password guesses sent all at once: each attempt is counted before its password is checked, so a burst of 40
// wrong passwords for one person gets at most 10 passwords checked (400) and the rest 429, on the portal and on the
// console. Checking first and counting after let all 40 through.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { consoleHarness, setUpOperator } from '../../helpers/console.js'
import { client, GOOD_PASSWORD, portalHarness, signedUpUser } from '../../helpers/portal.js'

const BURST = 40

/** How many of `responses` had each status. */
function tally(responses: { statusCode: number }[]): Record<number, number> {
  const counts: Record<number, number> = {}
  for (const r of responses) counts[r.statusCode] = (counts[r.statusCode] ?? 0) + 1
  return counts
}

test('the portal: a burst of wrong passwords for one person has at most 10 of them checked', async (t) => {
  const h = await portalHarness(t)
  await signedUpUser(h, 'burst@example.com')
  const c = client(h.app)
  await c.get('/portal/login')
  const guesses = Array.from({ length: BURST }, (_, i) =>
    c.post('/portal/login', { email: 'burst@example.com', password: `wrong password number ${i}` }),
  )
  const counts = tally(await Promise.all(guesses))
  t.diagnostic(`statuses: ${JSON.stringify(counts)}`)
  assert.ok((counts[400] ?? 0) <= 10, `${counts[400]} wrong passwords were checked`)
  assert.equal((counts[400] ?? 0) + (counts[429] ?? 0), BURST)
  const failures = await h.services.portal!.repo.failuresSince({
    email: 'burst@example.com',
    address: '127.0.0.1',
    since: h.clock.now() - 15 * 60_000,
  })
  assert.equal(failures.count, counts[400] ?? 0, 'each checked wrong password is on record, and nothing else')
  // The right password right after: refused if the wrong ones used up the budget, admitted otherwise.
  const right = await c.post('/portal/login', { email: 'burst@example.com', password: GOOD_PASSWORD })
  assert.equal(right.statusCode, failures.count >= 10 ? 429 : 303)
})

test('the console: a burst of wrong passwords for one operator has at most 10 of them checked', async (t) => {
  const h = await consoleHarness(t)
  const operator = await setUpOperator(h, { role: 'admin' })
  const c = client(h.app)
  await c.get('/console/login')
  const guesses = Array.from({ length: BURST }, (_, i) =>
    c.post('/console/login', { email: operator.email, password: `wrong password number ${i}`, code: '123456' }),
  )
  const counts = tally(await Promise.all(guesses))
  t.diagnostic(`statuses: ${JSON.stringify(counts)}`)
  assert.ok((counts[400] ?? 0) <= 10, `${counts[400]} wrong passwords were checked`)
  assert.equal((counts[400] ?? 0) + (counts[429] ?? 0), BURST)
  const failures = await h.services.operators!.failures.failuresSince({
    email: operator.email,
    address: '127.0.0.1',
    since: h.clock.now() - 15 * 60_000,
  })
  assert.equal(failures.count, counts[400] ?? 0)
})
