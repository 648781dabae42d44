// /portal/keys through HTTP: create and roll answer 303 to a page that shows the secret once (with a curl call
// and the SDK's first lines), a reload shows it no more; a rolled key reads as one; revoke; another account's
// keys are out of reach.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, errorOf } from '../../helpers/harness.js'
import { client, GOOD_PASSWORD, ORIGIN, portalHarness, signedUpUser, type Client } from '../../helpers/portal.js'

const secretOf = (body: string) => /ps_test_[\w-]{43}/.exec(body)?.[0]
/** The page's text as a person copies it (the few entities our templates write undone). */
const shown = (body: string) =>
  body
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
/** The table row of the key whose prefix is given. */
const rowOf = (body: string, prefix: string) => body.split('<tr>').find((row) => row.includes(`${prefix}…`))!
/** The text of a row's cell, by its label. */
const cell = (row: string, label: string) =>
  new RegExp(`data-label="${label}">(.*?)</td>`).exec(row)![1]!.replace(/<[^>]+>/g, '')

/** Posts a form that makes a key (create or roll): a 303 to the key's page; returns its path and key id. */
async function madeKey(c: Client, url: string, fields: Record<string, string>) {
  const response = await c.post(url, fields)
  assert.equal(response.statusCode, 303, response.body)
  const location = response.headers.location as string
  const keyId = /^\/portal\/keys\/(key_[0-9a-f]+)\/created$/.exec(location)?.[1]
  assert.ok(keyId, `redirected to ${location}`)
  return { response, location, keyId }
}

test(
  'create: 303 to a page with the secret once, a curl call and the SDK; ' +
    'a reload creates nothing and shows no secret',
  async (t) => {
    const h = await portalHarness(t)
    const c = await signedUpUser(h, 'prg@example.com')
    const accountId = (await h.services.portal!.repo.findUserByEmail('prg@example.com'))!.account_id
    await c.get('/portal/keys/new')
    const { response, location, keyId } = await madeKey(c, '/portal/keys', { name: 'ci server', expires: '' })
    assert.equal(response.body, '', 'the POST answer carries no secret')
    const flash = (
      response.cookies as { name: string; path?: string; httpOnly?: boolean; sameSite?: string; maxAge?: number }[]
    ).find((k) => k.name === 'portal_new_key')!
    assert.deepEqual([flash.path, flash.httpOnly, flash.sameSite, flash.maxAge], [location, true, 'Strict', 120])

    const page = await c.get(location)
    assert.equal(page.statusCode, 200)
    assert.equal(page.headers['cache-control'], 'no-store')
    const secret = secretOf(page.body)!
    assert.ok(secret, page.body)
    assert.ok(!c.jar.has('portal_new_key'), 'the page cleared the cookie')
    const text = shown(page.body)
    assert.ok(text.includes(`curl -H "Authorization: Bearer ${secret}" ${ORIGIN}/v1/pets`), text)
    assert.ok(text.includes(`new Petstore({ apiKey: '${secret}', baseUrl: '${ORIGIN}/v1' })`), text)
    assert.ok(text.includes('await ps.pets.listPage('))
    assert.equal(
      (await h.app.inject({ url: '/v1/pets', headers: bearer(secret) })).statusCode,
      200,
      'the curl call works',
    )

    const reload = await c.get(location)
    assert.equal(reload.statusCode, 200)
    assert.equal(secretOf(reload.body), undefined)
    assert.match(reload.body, /This secret was shown once/)
    assert.match(reload.body, /ci server/)
    assert.ok(reload.body.includes(`${secret.slice(0, 12)}…`), 'the key is named by its prefix')
    assert.deepEqual(
      (await h.services.accounts.listApiKeys(accountId)).map((k) => k.id),
      [keyId],
      'one key, however often the page is opened',
    )
    assert.ok(!(await c.get('/portal/keys')).body.includes(secret), 'the list never shows the secret')
  },
)

test(
  'roll: 303 to the new key shown once; ' +
    'the old one reads `rolled` with the end of its grace; the new one keeps the name',
  async (t) => {
    const h = await portalHarness(t)
    const c = await signedUpUser(h, 'roll@example.com')
    await c.get('/portal/keys/new')
    const first = await madeKey(c, '/portal/keys', { name: 'deploy bot', expires: '30' })
    const oldSecret = secretOf((await c.get(first.location)).body)!
    const forever = await madeKey(c, '/portal/keys', { name: 'forever', expires: '' })
    const foreverSecret = secretOf((await c.get(forever.location)).body)!

    assert.match((await c.get(`/portal/keys/${first.keyId}/roll`)).body, /Grace period/)
    const rolled = await madeKey(c, `/portal/keys/${first.keyId}/roll`, { grace: '3600' })
    const page = await c.get(rolled.location)
    const newSecret = secretOf(page.body)!
    assert.notEqual(newSecret, oldSecret)
    assert.match(page.body, /keeps working until 2027-01-01 01:00 UTC/)
    assert.ok(shown(page.body).includes(`Bearer ${newSecret}`))
    const reload = await c.get(rolled.location)
    assert.equal(secretOf(reload.body), undefined)
    assert.match(reload.body, /This secret was shown once/)
    await c.get(`/portal/keys/${forever.keyId}/roll`)
    await madeKey(c, `/portal/keys/${forever.keyId}/roll`, { grace: '86400' })

    const list = (await c.get('/portal/keys')).body
    const oldRow = rowOf(list, oldSecret.slice(0, 12))
    assert.match(oldRow, /class="state-rolled">rolled</)
    assert.equal(cell(oldRow, 'Expires'), '2027-01-01 01:00 UTC', 'expires at the end of the grace period')
    const newRow = rowOf(list, newSecret.slice(0, 12))
    assert.match(newRow, /deploy bot/)
    assert.match(newRow, /class="state-active">active</)
    assert.equal(cell(newRow, 'Expires'), '2027-01-31 00:00 UTC', 'a roll never extends a key')
    const foreverRow = rowOf(list, foreverSecret.slice(0, 12))
    assert.match(foreverRow, /rolled/)
    assert.equal(cell(foreverRow, 'Expires'), '2027-01-02 00:00 UTC', 'no "never" on a key that will stop working')
    assert.equal(
      (await h.app.inject({ url: '/v1/pets', headers: bearer(oldSecret) })).statusCode,
      200,
      'the old key works during the grace period',
    )

    h.clock.advance(3600 * 1000)
    assert.equal(errorOf(await h.app.inject({ url: '/v1/pets', headers: bearer(oldSecret) })).code, 'invalid_api_key')
    // The hour ended the idle session too: log in again.
    await c.get('/portal/login')
    assert.equal(
      (await c.post('/portal/login', { email: 'roll@example.com', password: GOOD_PASSWORD })).statusCode,
      303,
    )
    const after = rowOf((await c.get('/portal/keys')).body, oldSecret.slice(0, 12))
    assert.match(after, /class="state-expired">expired</)
    assert.equal(cell(after, 'Expires'), '2027-01-01 01:00 UTC')
  },
)

test(
  'the secret cookie opens only in its own session, ' + 'for its own key, unaltered and within two minutes',
  async (t) => {
    const h = await portalHarness(t)
    const a = await signedUpUser(h, 'flash@example.com')
    await a.get('/portal/keys/new')
    const first = await madeKey(a, '/portal/keys', { name: 'one', expires: '' })
    const sealed = a.jar.get('portal_new_key')!
    assert.ok(sealed && !sealed.includes('ps_test_'))

    // The same user in another browser (another session), with the first browser's cookie.
    const b = await signedUpUserAgain(h, 'flash@example.com')
    b.jar.set('portal_new_key', sealed)
    const other = await b.get(first.location)
    assert.equal(other.statusCode, 200)
    assert.equal(secretOf(other.body), undefined, 'another session reads nothing')
    assert.match(other.body, /This secret was shown once/)

    // Altered: nothing; the genuine cookie still opens (so nothing else was wrong).
    const flipped = Buffer.from(sealed, 'base64url')
    flipped[20] = flipped[20]! ^ 1
    a.jar.set('portal_new_key', flipped.toString('base64url'))
    assert.equal(secretOf((await a.get(first.location)).body), undefined, 'an altered cookie shows nothing')
    a.jar.set('portal_new_key', sealed)
    // For another key of the same session: nothing.
    await a.get('/portal/keys/new')
    const second = await madeKey(a, '/portal/keys', { name: 'two', expires: '' })
    const secondSealed = a.jar.get('portal_new_key')!
    a.jar.set('portal_new_key', sealed)
    assert.equal(secretOf((await a.get(second.location)).body), undefined, "another key's cookie shows nothing")
    a.jar.set('portal_new_key', sealed)
    assert.ok(secretOf((await a.get(first.location)).body), 'its own page, in its own session')

    // Two minutes later: nothing, even if a browser kept the cookie.
    h.clock.advance(121_000)
    a.jar.set('portal_new_key', secondSealed)
    assert.equal(secretOf((await a.get(second.location)).body), undefined, 'an expired cookie shows nothing')
  },
)

/** A second session of an existing user (another browser). */
async function signedUpUserAgain(h: Awaited<ReturnType<typeof portalHarness>>, email: string): Promise<Client> {
  const c = client(h.app)
  await c.get('/portal/login')
  assert.equal((await c.post('/portal/login', { email, password: GOOD_PASSWORD })).statusCode, 303)
  return c
}

test('revoke refuses the key from the next request on, after its confirmation step', async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, 'revoke@example.com')
  await c.get('/portal/keys/new')
  const { location, keyId } = await madeKey(c, '/portal/keys', { name: 'doomed', expires: '' })
  const secret = secretOf((await c.get(location)).body)!
  assert.match((await c.get(`/portal/keys/${keyId}/revoke`)).body, /Revoke key<\/button>/)
  assert.equal(
    (await h.app.inject({ url: '/v1/pets', headers: bearer(secret) })).statusCode,
    200,
    'nothing changes before the confirmation',
  )
  assert.equal((await c.post(`/portal/keys/${keyId}/revoke`, {})).statusCode, 303)
  const refused = await h.app.inject({ url: '/v1/pets', headers: bearer(secret) })
  assert.equal(errorOf(refused).code, 'invalid_api_key')
  assert.match(errorOf(refused).message, /revoked/)
  assert.match(rowOf((await c.get('/portal/keys')).body, secret.slice(0, 12)), /class="state-revoked">revoked</)
})

test("another account's key cannot be seen, shown, rolled or revoked", async (t) => {
  const h = await portalHarness(t)
  const owner = await signedUpUser(h, 'owner@example.com')
  await owner.get('/portal/keys/new')
  const { location, keyId } = await madeKey(owner, '/portal/keys', { name: 'mine', expires: '' })
  const sealed = owner.jar.get('portal_new_key')!
  const other = await signedUpUser(h, 'other@example.com')
  await other.get('/portal/keys')
  other.jar.set('portal_new_key', sealed)
  assert.equal((await other.get(location)).statusCode, 404)
  assert.equal((await other.get(`/portal/keys/${keyId}/roll`)).statusCode, 404)
  assert.equal((await other.post(`/portal/keys/${keyId}/roll`, { grace: '0' })).statusCode, 404)
  assert.equal((await other.post(`/portal/keys/${keyId}/revoke`, {})).statusCode, 404)
  const secret = secretOf((await owner.get(location)).body)!
  assert.equal((await h.app.inject({ url: '/v1/pets', headers: bearer(secret) })).statusCode, 200)
})

test("a suspended account's keys read suspended, not active, until it is reactivated", async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, 'paused@example.com')
  await c.get('/portal/keys/new')
  const { location } = await madeKey(c, '/portal/keys', { name: 'paused', expires: '' })
  const secret = secretOf((await c.get(location)).body)!
  const { account_id: accountId } = (await h.services.portal!.repo.findUserByEmail('paused@example.com'))!
  const actor = { kind: 'cli', user: 'test' } as const
  await h.services.accounts.suspend({ accountId, reason: 'unpaid', actor })
  assert.match(rowOf((await c.get('/portal/keys')).body, secret.slice(0, 12)), /class="state-suspended">suspended</)
  await h.services.accounts.reactivate({ accountId, actor })
  assert.match(rowOf((await c.get('/portal/keys')).body, secret.slice(0, 12)), /class="state-active">active</)
})
