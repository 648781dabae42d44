// The rules on creating keys in the portal: names are plain text (no controls, bidi overrides, zero-width or
// separator characters), and at most PORTAL_MAX_KEYS (25) working keys per account; a roll is never refused by
// the cap, and two creates at once cannot both take the last place.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { KeyLimitError } from '../../../src/modules/accounts/accounts.repository.js'
import { portalHarness, signedUpUser, type Client } from '../../helpers/portal.js'
import { testActor } from '../../helpers/actors.js'

const created = (c: Client, name: string) => c.post('/portal/keys', { name, expires: '' })

test(
  'a key name with a control, bidi-override, zero-width or ' +
    'line-separator character is refused with 400 and a message',
  async (t) => {
    const h = await portalHarness(t)
    const c = await signedUpUser(h, 'names@example.com')
    const accountId = (await h.services.portal!.repo.findUserByEmail('names@example.com'))!.account_id
    await c.get('/portal/keys/new')
    for (const [name, code] of [
      ['invoice\u202Etxt.exe', 'U+202E'],
      ['pay\u200Bments', 'U+200B'],
      ['bell\u0007', 'U+0007'],
      ['two\u2028lines', 'U+2028'],
      ['soft\u00ADhyphen', 'U+00AD'],
    ] as const) {
      const refused = await created(c, name)
      assert.equal(refused.statusCode, 400, name)
      assert.match(
        refused.body,
        new RegExp(
          'role="alert"[^>]*>The key could not be created: ' +
            'a key name cannot hold control characters, invisible formatting characters',
        ),
      )
      assert.ok(refused.body.includes(code), `${code} named in the message`)
    }
    assert.deepEqual(await h.services.accounts.listApiKeys(accountId), [], 'nothing was created')
    // Plain text from any script is fine, emoji included.
    assert.equal((await created(c, 'Zürich — 東京 🐾')).statusCode, 303)
  },
)

test(
  'the 26th working key is refused with how many there are and how to revoke one; ' +
    'revoking makes room; a roll is not refused',
  async (t) => {
    const h = await portalHarness(t)
    const c = await signedUpUser(h, 'many@example.com')
    const accountId = (await h.services.portal!.repo.findUserByEmail('many@example.com'))!.account_id
    await c.get('/portal/keys/new')
    for (let i = 1; i <= 25; i++) assert.equal((await created(c, `key ${i}`)).statusCode, 303, `key ${i}`)

    await c.get('/portal/keys/new')
    const refused = await created(c, 'key 26')
    assert.equal(refused.statusCode, 400)
    assert.match(
      refused.body,
      new RegExp(
        'You have 25 working keys \\(active, or rolled and still in their grace period\\); ' +
          'an account may have at most 25\\.',
      ),
    )
    assert.match(refused.body, /revoke a key you no longer use: press Revoke in its row on your keys page/)
    assert.equal((await h.services.accounts.listApiKeys(accountId)).length, 25)
    assert.match(
      (await c.get('/portal/keys')).body,
      /You have 25 working keys/,
      'the keys page says so before anyone tries',
    )

    // A roll replaces a key: allowed at the cap (26 working keys during the grace period).
    const [first, second] = await h.services.accounts.listApiKeys(accountId)
    await c.get(`/portal/keys/${first!.id}/roll`)
    assert.equal((await c.post(`/portal/keys/${first!.id}/roll`, { grace: '3600' })).statusCode, 303)
    await c.get('/portal/keys/new')
    assert.match(
      (await created(c, 'key 26')).body,
      /You have 26 working keys/,
      'a rolled key in its grace period still counts',
    )

    // Revoking the old one and another makes room for exactly one more.
    for (const id of [first!.id, second!.id]) {
      await c.get(`/portal/keys/${id}/revoke`)
      assert.equal((await c.post(`/portal/keys/${id}/revoke`, {})).statusCode, 303)
    }
    await c.get('/portal/keys/new')
    assert.equal((await created(c, 'key 26')).statusCode, 303)
    assert.equal((await created(c, 'key 27')).statusCode, 400)
  },
)

test('creates racing for the last places: exactly as many succeed as there is room for', async (t) => {
  const h = await portalHarness(t)
  const account = await h.services.accounts.createAccount({ actor: testActor, name: 'racing', plan: 'free' })
  const make = () =>
    h.services.accounts.createApiKey({
      actor: testActor,
      accountId: account.id,
      environment: 'test',
      name: 'racer',
      maxActive: 5,
    })
  for (let i = 0; i < 3; i++) await make()
  const results = await Promise.allSettled(Array.from({ length: 20 }, make))
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 2)
  for (const r of results) if (r.status === 'rejected') assert.ok(r.reason instanceof KeyLimitError, String(r.reason))
  assert.equal((await h.services.accounts.listApiKeys(account.id)).length, 5)
  // Without a cap (the CLI's --force) the service creates regardless.
  await h.services.accounts.createApiKey({ actor: testActor, accountId: account.id, environment: 'test' })
  assert.equal((await h.services.accounts.listApiKeys(account.id)).length, 6)
})
