// No account enumeration: sign-up, log-in failures and reset requests answer the same whether or not the
// address has an account; only the owner of the address learns it (by mail).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { client, GOOD_PASSWORD, linkIn, mails, portalHarness, signedUpUser } from '../../helpers/portal.js'

/** What a visitor sees: status, body (with the visitor's own CSRF token taken out) and which headers. */
function seen(response: LightMyRequestResponse) {
  const body = response.body
    .replace(/name="_csrf" value="[^"]+"/g, 'name="_csrf" value=""')
    .replace(/someone(\.else)?@example\.com|new@example\.com|taken@example\.com/gi, 'ADDRESS')
  return {
    status: response.statusCode,
    body,
    headers: Object.keys(response.headers)
      .filter((h) => !['date', 'x-request-id', 'content-length', 'set-cookie'].includes(h))
      .sort(),
  }
}

test(
  'sign-up with an address that has an account answers ' + 'exactly like a new one, and mails that address',
  async (t) => {
    const h = await portalHarness(t)
    await signedUpUser(h, 'taken@example.com')
    const before = (await mails(h, h.outbox)).length
    const taken = client(h.app)
    await taken.get('/portal/signup')
    const again = await taken.post('/portal/signup', {
      email: 'TAKEN@example.com',
      password: 'another long enough password',
    })
    const fresh = client(h.app)
    await fresh.get('/portal/signup')
    const brandNew = await fresh.post('/portal/signup', {
      email: 'new@example.com',
      password: 'another long enough password',
    })
    assert.deepEqual(seen(again), seen(brandNew))
    assert.equal(again.statusCode, 200)

    const sent = (await mails(h, h.outbox)).slice(before)
    const toTaken = sent.find((m) => /^To: taken@example\.com$/m.test(m))
    assert.ok(toTaken, 'the owner of the address is told')
    assert.match(toTaken, /^Subject: You already have an account$/m)
    assert.ok(linkIn(toTaken, '/portal/reset-request'))
    assert.doesNotMatch(toTaken, /\/portal\/verify/)
    // The existing account keeps its password: the attempt changed nothing.
    const c = client(h.app)
    await c.get('/portal/login')
    assert.equal(
      (await c.post('/portal/login', { email: 'taken@example.com', password: GOOD_PASSWORD })).statusCode,
      303,
    )
    assert.equal(
      (await h.services.accounts.listAccounts()).filter((a) => a.name.toLowerCase() === 'taken@example.com').length,
      1,
    )
  },
)

test('a failed log-in says the same for a wrong password and for an address without an account', async (t) => {
  const h = await portalHarness(t)
  await signedUpUser(h, 'someone@example.com')
  const attempt = async (email: string) => {
    const c = client(h.app)
    await c.get('/portal/login')
    return c.post('/portal/login', { email, password: 'not the right password at all' })
  }
  const wrongPassword = await attempt('someone@example.com')
  const noAccount = await attempt('someone.else@example.com')
  assert.equal(wrongPassword.statusCode, 400)
  assert.match(wrongPassword.body, /Email or password is incorrect\./)
  assert.deepEqual(seen(wrongPassword), seen(noAccount))
})

test(
  'a reset request says the same whether or not the address has an account; ' + 'only the owner gets a link',
  async (t) => {
    const h = await portalHarness(t)
    await signedUpUser(h, 'someone@example.com')
    const before = (await mails(h, h.outbox)).length
    const ask = async (email: string) => {
      const c = client(h.app)
      await c.get('/portal/reset-request')
      return c.post('/portal/reset-request', { email })
    }
    const known = await ask('someone@example.com')
    const unknown = await ask('someone.else@example.com')
    assert.equal(known.statusCode, 200)
    assert.deepEqual(seen(known), seen(unknown))
    const sent = (await mails(h, h.outbox)).slice(before)
    assert.equal(sent.length, 1)
    assert.match(sent[0]!, /^To: someone@example\.com$/m)
    assert.ok(linkIn(sent[0]!, '/portal/reset/'))
  },
)
