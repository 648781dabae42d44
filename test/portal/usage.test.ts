// /portal/usage: the plan beside the current counts, and the charts of the account and of one key, admitted and
// refused apart.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer } from '../helpers/harness.js'
import { portalHarness, signedUpUser } from '../helpers/portal.js'

const secretOf = (body: string) => /ps_test_[\w-]{43}/.exec(body)![0]
const described = (body: string, id: 'minute' | 'day') => new RegExp(`<desc id="${id}-desc">([^<]*)</desc>`).exec(body)![1]!

test('the usage page shows the plan, the current counts and both charts, for the account and per key', async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, 'usage@example.com')
  await c.get('/portal/keys/new')
  const busy = secretOf((await c.post('/portal/keys', { name: 'busy', expires: '' })).body)
  await c.get('/portal/keys/new')
  const quiet = secretOf((await c.post('/portal/keys', { name: 'quiet', expires: '' })).body)
  // 61 calls of the busy key: the free plan admits 60 a minute, the 61st is refused.
  for (let i = 0; i < 61; i++) await h.app.inject({ url: '/v1/pets', headers: bearer(busy) })
  h.clock.advance(60_000)
  await h.app.inject({ url: '/v1/pets', headers: bearer(quiet) })

  const page = await c.get('/portal/usage')
  assert.equal(page.statusCode, 200)
  assert.match(page.body, /<svg role="img"[^>]*aria-labelledby="minute-title"/)
  assert.match(page.body, /<title id="minute-title">Requests per minute<\/title>/)
  assert.match(page.body, /<title id="day-title">Requests per day<\/title>/)
  assert.match(described(page.body, 'minute'), /all keys: 61 admitted, 1 refused\./)
  assert.match(described(page.body, 'day'), /all keys: 61 admitted, 1 refused\./)
  assert.match(page.body, /class="refused"/, 'refused requests are drawn')
  assert.match(page.body, />free</)
  assert.match(page.body, /60 per minute, 1,000 per day/)
  assert.match(page.body, /This minute<\/div><div class="value">1 <span class="muted">of 60/)
  assert.match(page.body, /Today \(UTC\)<\/div><div class="value">61 <span class="muted">of 1,000/)

  const keyId = new RegExp(`<option value="(key_[0-9a-f]+)">quiet`).exec(page.body)![1]!
  const one = await c.get(`/portal/usage?key=${keyId}`)
  assert.match(described(one.body, 'minute'), /key quiet: 1 admitted, 0 refused\./)
  // An id that is not one of the account's keys shows the account, never another account's figures.
  const other = await c.get('/portal/usage?key=key_0000')
  assert.match(described(other.body, 'minute'), /all keys: 61 admitted, 1 refused\./)
})
