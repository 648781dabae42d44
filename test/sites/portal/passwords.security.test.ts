// Passwords: 15–128 characters, common and easy-to-guess ones refused, stored as scrypt, never in the log.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { client, GOOD_PASSWORD, portalHarness, signedUpUser } from '../../helpers/portal.js'

test('a password shorter than 15, longer than 128 or on the common list is refused with the form again', async (t) => {
  const h = await portalHarness(t)
  const c = client(h.app)
  await c.get('/portal/signup')
  for (const [password, reason] of [
    ['fourteen chars', /at least 15 characters/],
    ['x'.repeat(129), /at most 128 characters/],
    ['passwordpassword', /commonly used passwords/],
    ['1qaz2wsx3edc4rfv', /commonly used passwords/],
  ] as const) {
    const response = await c.post('/portal/signup', { email: 'weak@example.com', password })
    assert.equal(response.statusCode, 400, password)
    assert.match(response.body, reason)
    assert.match(response.body, /role="alert"/)
    assert.match(response.body, /value="weak@example.com"/, 'the address is kept in the form')
    assert.doesNotMatch(response.body, new RegExp(password), 'the password is not echoed')
  }
  assert.equal(await h.services.portal!.repo.findUserByEmail('weak@example.com'), undefined)
  // Exactly 15 characters, with no composition rule (all lower case letters and spaces).
  assert.equal(
    (await c.post('/portal/signup', { email: 'ok@example.com', password: 'just some words' })).statusCode,
    200,
  )
  // 15 emoji are 15 characters (30 UTF-16 units); different ones, since one repeated is refused.
  assert.equal(
    (await c.post('/portal/signup', { email: 'emoji@example.com', password: '🐶🐱🐭🐹🐰🦊🐻🐼🐨🐯🦁🐮🐷🐸🐵' }))
      .statusCode,
    200,
  )
})

test('an easy-to-guess password is refused by the sign-up form, which says which rule refused it', async (t) => {
  const h = await portalHarness(t)
  const c = client(h.app)
  await c.get('/portal/signup')
  const email = 'johnathan.smith@example.com'
  for (const [password, reason] of [
    ['aaaaaaaaaaaaaaa', /This password repeats one character/],
    ['abcabcabcabcabc', /This password repeats a group of characters/],
    ['123456789012345', /This password is a simple sequence/],
    ['abcdefghijklmnop', /This password is a simple sequence/],
    ['qwertyuiopasdfgh', /This password is a simple sequence/],
    [`${email}!`, /This password contains your email address/],
    ['Johnathan.Smith2024', /This password is made from your email address \(the part before @\)/],
    ['my pet store password', /This password contains the product&#39;s name \(Petstore\)/],
    ['iloveyou12345678', /This password is too easy to guess: This is similar to a commonly used password\./],
    // Only the address (zxcvbn's user input) makes this one guessable.
    [
      'johnathan.smith12345',
      /This password is too easy to guess: There should not be any personal or page related data\./,
    ],
  ] as const) {
    const response = await c.post('/portal/signup', { email, password })
    assert.equal(response.statusCode, 400, password)
    assert.match(response.body, reason, password)
    assert.match(response.body, /role="alert"/)
    assert.ok(!response.body.toLowerCase().includes(password.toLowerCase()), `the password is not echoed: ${password}`)
  }
  assert.equal(await h.services.portal!.repo.findUserByEmail(email), undefined)
  // A long random passphrase and the suite's usual password are accepted, for that address too.
  assert.equal((await c.post('/portal/signup', { email, password: 'violet-harbor-quartz-lantern' })).statusCode, 200)
  assert.equal((await c.post('/portal/signup', { email: 'good@example.com', password: GOOD_PASSWORD })).statusCode, 200)
})

test('the password is stored as scrypt with a salt, never as itself', async (t) => {
  // At the production cost (PASSWORD_HASH_COST unset: its default), not the suite's cheap one; signing up logs in too.
  const h = await portalHarness(t, { env: { PASSWORD_HASH_COST: undefined } })
  await signedUpUser(h, 'hash@example.com')
  const user = await h.services.portal!.repo.findUserByEmail('hash@example.com')
  assert.match(user!.password_hash, /^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/)
  assert.ok(!user!.password_hash.includes(GOOD_PASSWORD))
})

test('neither the password nor an emailed token reaches the log, on success or on failure', async (t) => {
  const lines: string[] = []
  const stream = { write: (line: string) => void lines.push(line) }
  const h = await portalHarness(t, { logger: { level: 'trace', stream } })
  const c = await signedUpUser(h, 'log@example.com')
  await c.post('/portal/logout', {})
  await c.get('/portal/login')
  await c.post('/portal/login', { email: 'log@example.com', password: 'wrong but long enough password' })
  await c.post('/portal/signup', { email: 'log@example.com', password: 'x' })
  await c.get('/portal/reset?token=not-a-real-token-but-secret-looking')
  const log = lines.join('\n')
  assert.ok(lines.length > 5, 'requests were logged')
  assert.ok(!log.includes(GOOD_PASSWORD))
  assert.ok(!log.includes('wrong but long enough password'))
  assert.ok(!log.includes('not-a-real-token'), 'query strings (tokens) are not logged')
  assert.ok(!/portal_session=|portal_pre=/.test(log), 'cookies are not logged')
})
