// Passkeys over HTTP with a software authenticator (test/helpers/soft-authenticator.ts), on the pass's backend:
// registration shows the first recovery codes, a passkey signs in alone, and every bad answer gets a clear page and
// changes nothing: a replayed or malformed answer, another browser's challenge, one older than 5 minutes, another
// origin or relying party, another user's passkey, a counter that goes backwards (refused, mailed, audited).
// A user with only a passkey who lost it signs in with a password and a recovery code.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { client, GOOD_PASSWORD, mails, ORIGIN, portalHarness, signedUpUser, type Client } from '../../helpers/portal.js'
import { softAuthenticator } from '../../helpers/soft-authenticator.js'

type H = Awaited<ReturnType<typeof portalHarness>>
const RP = new URL(ORIGIN).hostname
const device = softAuthenticator(RP, ORIGIN)
const json = (body: string) => JSON.parse(body) as { challenge: string; user: { id: string } }
const subjects = async (h: H) => (await mails(h, h.outbox)).map((m) => /^Subject: (.*)$/m.exec(m)?.[1] ?? '')

async function addPasskey(c: Client, name = 'Laptop') {
  await c.get('/portal/account')
  const options = await c.post('/portal/account/passkeys/options', { purpose: 'register' })
  assert.equal(options.statusCode, 200, options.body)
  const { passkey, response } = device.register(json(options.body))
  const added = await c.post('/portal/account/passkeys', { name, response: JSON.stringify(response) })
  return { passkey, added }
}

/** Options for signing in, from a fresh browser on the log-in page. */
async function signInOptions(h: H) {
  const c = client(h.app)
  await c.get('/portal/login')
  const options = await c.post('/portal/passkey/options', { purpose: 'sign_in' })
  assert.equal(options.statusCode, 200)
  return { c, options: json(options.body) }
}

const signIn = (c: Client, answer: unknown) =>
  c.post('/portal/login/passkey', { response: typeof answer === 'string' ? answer : JSON.stringify(answer) })

test('a passkey is added (first factor: recovery codes, mail) and signs in alone; its answer works once', async (t) => {
  const h = await portalHarness(t)
  const owner = await signedUpUser(h, 'ada@example.com')
  const { passkey: soft, added } = await registered(owner)
  assert.equal([...added.body.matchAll(/<li><code>/g)].length, 10, 'the first factor shows 10 recovery codes')
  assert.ok((await subjects(h)).includes('Passkey added'))
  assert.match((await owner.get('/portal/account')).body, /Two-factor log-in is on/)

  const { c, options } = await signInOptions(h)
  const answer = device.assert(soft, options)
  const signedIn = await signIn(c, answer)
  assert.equal(signedIn.statusCode, 303)
  assert.equal((await c.get('/portal/keys')).statusCode, 200)
  const again = client(h.app)
  await again.get('/portal/login')
  const replay = await signIn(again, answer)
  assert.equal(replay.statusCode, 400, 'a replayed answer is refused')
  assert.match(replay.body, /could not be checked/)
})

test('bad answers get a clear page and sign nobody in', async (t) => {
  const h = await portalHarness(t)
  const owner = await signedUpUser(h, 'ada@example.com')
  const { passkey } = await registered(owner)

  for (const malformed of [
    'not json',
    '{}',
    '[]',
    JSON.stringify({ id: passkey.id, response: { clientDataJSON: 'x' } }),
  ]) {
    const { c } = await signInOptions(h)
    const answer = await signIn(c, malformed)
    assert.equal(answer.statusCode, 400, malformed)
    assert.equal((await c.get('/portal/keys')).statusCode, 303)
  }

  const { options } = await signInOptions(h)
  const other = client(h.app)
  await other.get('/portal/login')
  assert.equal((await signIn(other, device.assert(passkey, options))).statusCode, 400, "another browser's challenge")

  const late = await signInOptions(h)
  h.clock.advance(5 * 60_000 + 1000)
  assert.equal((await signIn(late.c, device.assert(passkey, late.options))).statusCode, 400, 'older than 5 minutes')

  const elsewhere = await signInOptions(h)
  const foreign = device.assert(passkey, elsewhere.options, { from: 'http://evil.test' })
  assert.equal((await signIn(elsewhere.c, foreign)).statusCode, 400, 'another origin')

  const party = await signInOptions(h)
  const wrongRp = softAuthenticator('evil.test', ORIGIN).assert(passkey, party.options)
  assert.equal((await signIn(party.c, wrongRp)).statusCode, 400, 'another relying party id')

  const good = await signInOptions(h)
  assert.equal((await signIn(good.c, device.assert(passkey, good.options))).statusCode, 303, 'still works')
})

test('a counter that goes backwards is refused as a copy: mailed and audited', async (t) => {
  const h = await portalHarness(t)
  const owner = await signedUpUser(h, 'ada@example.com')
  const { passkey } = await registered(owner)
  const first = await signInOptions(h)
  assert.equal((await signIn(first.c, device.assert(passkey, first.options, { counter: 5 }))).statusCode, 303)
  const copy = await signInOptions(h)
  const cloned = await signIn(copy.c, device.assert(passkey, copy.options, { counter: 3 }))
  assert.equal(cloned.statusCode, 400)
  assert.match(cloned.body, /copied/)
  assert.ok((await subjects(h)).includes('Passkey refused'))
  const actions = (await h.services.audit.list({ limit: 50 })).map((e) => e.action)
  assert.ok(actions.includes('account.passkey_clone_refused'))
})

test("another user's passkey cannot confirm for this user, nor be registered from another session", async (t) => {
  const h = await portalHarness(t)
  const ada = await signedUpUser(h, 'ada@example.com')
  const { passkey: adas } = await registered(ada)
  const bob = await signedUpUser(h, 'bob@example.com')
  await addPasskey(bob, 'Bob phone')
  // A registration answer made for Ada's challenge, sent from Bob's session: refused, nothing added.
  await ada.get('/portal/account')
  const adaOptions = await ada.post('/portal/account/passkeys/options', { purpose: 'register' })
  const { response } = device.register(json(adaOptions.body))
  await bob.get('/portal/account')
  const stolen = await bob.post('/portal/account/passkeys', { name: 'x', response: JSON.stringify(response) })
  assert.equal(stolen.statusCode, 400)
  assert.match(stolen.body, /could not be added/)
  const bobId = (await h.services.portal!.repo.findUserByEmail('bob@example.com'))!.id
  assert.equal((await h.services.twoFactor.status(bobId)).passkeys.length, 1)

  h.clock.advance(16 * 60_000)
  await bob.get('/portal/keys/new')
  const asked = await bob.post('/portal/keys', { name: 'k', expires: '' })
  assert.equal(asked.statusCode, 403)
  const options = await bob.post('/portal/passkey/options', { purpose: 'confirm' })
  const answer = device.assert(adas, json(options.body))
  const refused = await bob.post('/portal/sudo', {
    return_to: '/portal/keys',
    kept: '{"name":"k","expires":""}',
    response: JSON.stringify(answer),
  })
  assert.equal(refused.statusCode, 400, "Ada's passkey does not confirm Bob")
})

test('a user with only a passkey who lost it logs in with the password and a recovery code', async (t) => {
  const h = await portalHarness(t)
  const owner = await signedUpUser(h, 'ada@example.com')
  const { added } = await addPasskey(owner)
  const [code] = [...added.body.matchAll(/<li><code>([0-9a-z-]+)<\/code><\/li>/g)].map((m) => m[1]!)
  const c = client(h.app)
  await c.get('/portal/login')
  const step = await c.post('/portal/login', { email: 'ada@example.com', password: GOOD_PASSWORD })
  assert.equal(step.statusCode, 200)
  assert.match(step.body, /Use a passkey/)
  assert.equal((await c.post('/portal/login/code', { code: code! })).statusCode, 303)
  assert.equal((await c.get('/portal/keys')).statusCode, 200)
})

/** Adds a passkey and returns the soft key behind it. */
async function registered(c: Client) {
  const { passkey, added } = await addPasskey(c)
  assert.equal(added.statusCode, 200, added.body)
  return { passkey, added }
}
