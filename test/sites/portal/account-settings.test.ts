// /portal/account: the sessions table, changing the password (other sessions end, this one stays, the address is
// told), logging out other sessions, and changing the address (only once the link sent to the new one is opened;
// the old one is told; an address with an account is answered like a free one). Refusals: a wrong password
// (counted as a failed log-in), a missing CSRF token, a logged-out visitor.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { LOGIN_FAILURES_ALLOWED } from '../../../src/sites/portal/throttle.js'
import {
  client,
  GOOD_PASSWORD,
  linkIn,
  mails,
  ORIGIN,
  portalHarness,
  signedUpUser,
  type Client,
} from '../../helpers/portal.js'

const NEW_PASSWORD = 'violet-harbor-quartz-lantern'
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0'
type H = Awaited<ReturnType<typeof portalHarness>>

/** A second browser logged in as `email`, with its own User-Agent. */
async function loggedIn(h: H, email: string, password = GOOD_PASSWORD, userAgent = FIREFOX): Promise<Client> {
  const c = client(h.app)
  await c.get('/portal/login')
  const response = await c.post('/portal/login', { email, password }, { origin: ORIGIN, 'user-agent': userAgent })
  assert.equal(response.statusCode, 303, response.body)
  return c
}

/** Whether `email`/`password` logs in now. */
async function canLogIn(h: H, email: string, password: string): Promise<boolean> {
  const c = client(h.app)
  await c.get('/portal/login')
  return (await c.post('/portal/login', { email, password })).statusCode === 303
}

/** Whether a raw message's To header is `to` (bare or in angle brackets). */
const isTo = (mail: string, to: string) => mail.split(/\r?\n/).some((line) => line.replace(/[<>]/g, '') === `To: ${to}`)
/** The messages to one address (its `To` header), oldest first. */
const mailsTo = async (h: H, to: string) => (await mails(h, h.outbox)).filter((m) => isTo(m, to))
/** A page's text without its tags, white space collapsed. */
const text = (body: string) => body.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ')

test(
  'the account page lists the sessions (browser, address, ' + 'this one marked); logged out it leads to log-in',
  async (t) => {
    const h = await portalHarness(t)
    const laptop = await signedUpUser(h, 'sessions@example.com')
    await loggedIn(h, 'sessions@example.com')
    const page = await laptop.get('/portal/account')
    assert.equal(page.statusCode, 200)
    assert.match(
      page.body,
      /<a href="\/portal\/account" aria-current="page">Account<\/a>/,
      'the navigation has the Account link',
    )
    const rows = [...page.body.matchAll(/<tr(?: class="current")?><th scope="row"[^>]*>([\s\S]*?)<\/tr>/g)].map((m) =>
      text(m[0]),
    )
    assert.equal(rows.length, 2, page.body)
    assert.ok(
      rows.some((r) => r.includes('Firefox on Windows') && r.includes('127.0.0.1') && !r.includes('This session')),
      rows.join('\n'),
    )
    assert.equal(rows.filter((r) => r.includes('This session')).length, 1)
    assert.match(page.body, /1 other session\./)

    const anonymous = await client(h.app).get('/portal/account')
    assert.equal(anonymous.statusCode, 303)
    assert.match(anonymous.headers.location as string, /^\/portal\/login/)
  },
)

test(
  'changing the password: other sessions end, this one stays, ' + 'the address is told; the old password stops working',
  async (t) => {
    const h = await portalHarness(t)
    const laptop = await signedUpUser(h, 'change@example.com')
    const phone = await loggedIn(h, 'change@example.com')
    await laptop.get('/portal/account')
    const changed = await laptop.post('/portal/account/password', {
      current_password: GOOD_PASSWORD,
      new_password: NEW_PASSWORD,
    })
    assert.equal(changed.statusCode, 303)
    assert.equal(changed.headers.location, '/portal/account?done=password')
    const after = await laptop.get(changed.headers.location)
    assert.equal(after.statusCode, 200, 'this session stays')
    assert.match(after.body, /Your password was changed, and every other session was logged out\./)
    assert.equal((await phone.get('/portal/keys')).statusCode, 303, 'the other session ended')

    const told = await mailsTo(h, 'change@example.com')
    assert.ok(
      told.some((m) => /Subject: Your password was changed/.test(m)),
      'the address is told',
    )
    assert.equal(await canLogIn(h, 'change@example.com', GOOD_PASSWORD), false)
    assert.equal(await canLogIn(h, 'change@example.com', NEW_PASSWORD), true)
  },
)

test(
  'changing the password is refused with a wrong current password ' +
    '(a failed log-in), a weak new one, no CSRF token, or logged out',
  async (t) => {
    const h = await portalHarness(t)
    const c = await signedUpUser(h, 'refuse@example.com')
    await c.get('/portal/account')
    const wrong = await c.post('/portal/account/password', {
      current_password: 'not the password at all',
      new_password: NEW_PASSWORD,
    })
    assert.equal(wrong.statusCode, 400)
    assert.match(wrong.body, /role="alert">The password is incorrect\. Your password is unchanged\./)
    const weak = await c.post('/portal/account/password', {
      current_password: GOOD_PASSWORD,
      new_password: 'aaaaaaaaaaaaaaaa',
    })
    assert.equal(weak.statusCode, 400)
    assert.match(weak.body, /role="alert"/)
    const noToken = await c.post('/portal/account/password', {
      _csrf: '',
      current_password: GOOD_PASSWORD,
      new_password: NEW_PASSWORD,
    })
    assert.equal(noToken.statusCode, 403)
    const elsewhere = await c.post(
      '/portal/account/password',
      { current_password: GOOD_PASSWORD, new_password: NEW_PASSWORD },
      { origin: 'https://evil.example' },
    )
    assert.equal(elsewhere.statusCode, 403)
    assert.equal(await canLogIn(h, 'refuse@example.com', GOOD_PASSWORD), true, 'nothing changed')

    // Logged out (a pre-session's valid token): sent to log in, nothing changes.
    const anonymous = client(h.app)
    await anonymous.get('/portal/login')
    const out = await anonymous.post('/portal/account/password', {
      current_password: GOOD_PASSWORD,
      new_password: NEW_PASSWORD,
    })
    assert.equal(out.statusCode, 303)
    assert.match(out.headers.location as string, /^\/portal\/login/)

    // The form is no password oracle: its failures count with the log-in's, and then the right password is 429 too.
    for (let i = 1; i < LOGIN_FAILURES_ALLOWED; i++) {
      assert.equal(
        (
          await c.post('/portal/account/password', {
            current_password: `wrong guess number ${i}`,
            new_password: NEW_PASSWORD,
          })
        ).statusCode,
        400,
      )
    }
    const limited = await c.post('/portal/account/password', {
      current_password: GOOD_PASSWORD,
      new_password: NEW_PASSWORD,
    })
    assert.equal(limited.statusCode, 429)
    assert.ok(Number(limited.headers['retry-after']) > 0)
    const login = client(h.app)
    await login.get('/portal/login')
    assert.equal(
      (await login.post('/portal/login', { email: 'refuse@example.com', password: GOOD_PASSWORD })).statusCode,
      429,
      'the log-in counts the same failures',
    )
  },
)

test('"Log out other sessions" ends every other session and keeps this one', async (t) => {
  const h = await portalHarness(t)
  const laptop = await signedUpUser(h, 'others@example.com')
  const phone = await loggedIn(h, 'others@example.com')
  const tablet = await loggedIn(h, 'others@example.com')
  const stranger = await signedUpUser(h, 'stranger@example.com')
  await laptop.get('/portal/account')
  const ended = await laptop.post('/portal/account/sessions/logout-others', {})
  assert.equal(ended.statusCode, 303)
  assert.equal(ended.headers.location, '/portal/account?done=sessions')
  assert.equal((await phone.get('/portal/keys')).statusCode, 303)
  assert.equal((await tablet.get('/portal/keys')).statusCode, 303)
  assert.equal((await stranger.get('/portal/keys')).statusCode, 200, "another user's session is untouched")
  const page = await laptop.get('/portal/account?done=sessions')
  assert.equal(page.statusCode, 200)
  assert.match(page.body, /Every other session was logged out\./)
  assert.match(page.body, /No other session is open\./)

  const noToken = await laptop.post('/portal/account/sessions/logout-others', { _csrf: 'forged' })
  assert.equal(noToken.statusCode, 403)
})

/** Asks for a change of address from the account page; returns the answer. */
async function askForAddress(c: Client, newEmail: string, password = GOOD_PASSWORD) {
  await c.get('/portal/account')
  return c.post('/portal/account/email', { new_email: newEmail, password })
}

test(
  'a new address takes effect only when its link is opened ' +
    '(GET shows a form, POST changes); the old address is told',
  async (t) => {
    const h = await portalHarness(t)
    const c = await signedUpUser(h, 'old@example.com')
    const asked = await askForAddress(c, 'New@Example.com')
    assert.equal(asked.statusCode, 200)
    assert.match(
      text(asked.body),
      /We sent a message to New@example\.com\. Your address changes when you open the link/,
    )

    const [toNew] = await mailsTo(h, 'New@example.com')
    assert.ok(toNew, 'the new address gets a message')
    const link = new URL(linkIn(toNew, '/portal/account/email/'))
    assert.equal(link.origin, ORIGIN)
    const toOld = (await mailsTo(h, 'old@example.com')).find((m) =>
      /Subject: Your email address is being changed/.test(m),
    )
    assert.ok(toOld, 'the old address is told')
    assert.match(toOld, /New@example\.com/)
    assert.match(toOld, /choose a new password/)
    assert.doesNotMatch(toOld, /\/portal\/account\/email\//, 'no link that changes anything')

    assert.equal(await canLogIn(h, 'old@example.com', GOOD_PASSWORD), true, 'nothing changed before the link is opened')
    assert.equal(await canLogIn(h, 'new@example.com', GOOD_PASSWORD), false)
    for (let i = 0; i < 2; i++) {
      const form = await c.get(link.pathname)
      assert.equal(form.statusCode, 200)
      assert.match(form.body, /Confirm new address/)
    }
    assert.equal(await canLogIn(h, 'old@example.com', GOOD_PASSWORD), true, 'opening the link changes nothing')

    const done = await c.post(link.pathname, {})
    assert.equal(done.statusCode, 200)
    assert.match(text(done.body), /Your account's address is now New@example\.com/)
    assert.equal(await canLogIn(h, 'old@example.com', GOOD_PASSWORD), false)
    assert.equal(await canLogIn(h, 'new@example.com', GOOD_PASSWORD), true, 'the address key follows (any case)')
    const account = await c.get('/portal/account')
    assert.match(account.body, /Your address is <strong>New@example\.com<\/strong>/)
    const user = await h.handle.db
      .selectFrom('portal_users')
      .selectAll()
      .where('email', '=', 'New@example.com')
      .executeTakeFirstOrThrow()
    assert.equal(user.email_key, 'new@example.com')
    assert.notEqual(user.verified_at, null, 'still verified')
    const accountRow = await h.handle.db
      .selectFrom('accounts')
      .select('name')
      .where('id', '=', user.account_id)
      .executeTakeFirstOrThrow()
    assert.equal(accountRow.name, 'New@example.com', 'the account name was the address, and follows it')

    const again = await client(h.app).get(link.pathname)
    assert.equal(again.statusCode, 400, 'the link works once')
  },
)

test(
  'the address change is refused with a wrong password, ' +
    'an invalid or unchanged address, no CSRF token, or logged out',
  async (t) => {
    const h = await portalHarness(t)
    const c = await signedUpUser(h, 'stay@example.com')
    const before = (await mails(h, h.outbox)).length
    const wrong = await askForAddress(c, 'elsewhere@example.com', 'not the password at all')
    assert.equal(wrong.statusCode, 400)
    assert.match(wrong.body, /The password is incorrect\. Your address is unchanged\./)
    assert.match(wrong.body, /value="elsewhere@example.com"/, 'what was typed is kept')
    const list = await askForAddress(c, 'a@example.com,b@evil.example')
    assert.equal(list.statusCode, 400)
    const same = await askForAddress(c, 'STAY@example.com')
    assert.equal(same.statusCode, 400)
    assert.match(same.body, /This is already your address\./)
    const noToken = await c.post('/portal/account/email', {
      _csrf: '',
      new_email: 'elsewhere@example.com',
      password: GOOD_PASSWORD,
    })
    assert.equal(noToken.statusCode, 403)
    const anonymous = client(h.app)
    await anonymous.get('/portal/login')
    const out = await anonymous.post('/portal/account/email', {
      new_email: 'elsewhere@example.com',
      password: GOOD_PASSWORD,
    })
    assert.equal(out.statusCode, 303)
    assert.match(out.headers.location as string, /^\/portal\/login/)
    assert.equal((await mails(h, h.outbox)).length, before, 'nothing was sent')
    const tokens = await h.handle.db
      .selectFrom('portal_tokens')
      .select('token_hash')
      .where('purpose', '=', 'email')
      .execute()
    assert.deepEqual(tokens, [])
  },
)

test(
  'an address that has an account is answered exactly like a free one; ' +
    'it gets a note without a link, and nothing changes',
  async (t) => {
    const h = await portalHarness(t)
    await signedUpUser(h, 'taken@example.com')
    const a = await signedUpUser(h, 'alice@example.com')
    const b = await signedUpUser(h, 'bob@example.com')
    const free = await askForAddress(a, 'free@example.com')
    const taken = await askForAddress(b, 'taken@example.com')
    assert.equal(taken.statusCode, free.statusCode)
    const normalise = (body: string, newEmail: string, oldEmail: string) =>
      body
        .replaceAll(newEmail, 'NEW')
        .replaceAll(oldEmail, 'OLD')
        .replace(/name="_csrf" value="[^"]*"/g, '')
    assert.equal(
      normalise(taken.body, 'taken@example.com', 'bob@example.com'),
      normalise(free.body, 'free@example.com', 'alice@example.com'),
    )

    const note = (await mailsTo(h, 'taken@example.com')).find((m) =>
      /Subject: This address already has an account/.test(m),
    )
    assert.ok(note, 'the taken address gets a note')
    assert.doesNotMatch(note, /\/portal\/account\/email\//, 'and no link')
    assert.ok(
      (await mailsTo(h, 'bob@example.com')).some((m) => /Subject: Your email address is being changed/.test(m)),
      'the old address is told either way',
    )
    assert.equal(await canLogIn(h, 'bob@example.com', GOOD_PASSWORD), true)
    assert.equal(await canLogIn(h, 'taken@example.com', GOOD_PASSWORD), true, 'the other account is untouched')
  },
)

test('an address another account took after the link was sent is refused when the link is opened', async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, 'slow@example.com')
  await askForAddress(c, 'contested@example.com')
  const link = new URL(linkIn((await mailsTo(h, 'contested@example.com'))[0]!, '/portal/account/email/'))
  await signedUpUser(h, 'CONTESTED@example.com')
  await c.get(link.pathname)
  const refused = await c.post(link.pathname, {})
  assert.equal(refused.statusCode, 409)
  assert.match(
    text(refused.body),
    /contested@example\.com has an account of its own now, so your address was not changed/,
  )
  assert.equal(await canLogIn(h, 'slow@example.com', GOOD_PASSWORD), true)
})

test('a password reset or change after the request cancels a pending change of address', async (t) => {
  const h = await portalHarness(t)
  const c = await signedUpUser(h, 'victim@example.com')
  await askForAddress(c, 'attacker@example.com')
  const first = new URL(linkIn((await mailsTo(h, 'attacker@example.com'))[0]!, '/portal/account/email/'))
  h.clock.advance(1_000)
  // The owner follows the advice in the message to the old address: a reset.
  const owner = client(h.app)
  await owner.get('/portal/reset-request')
  await owner.post('/portal/reset-request', { email: 'victim@example.com' })
  const reset = new URL(
    linkIn(
      (await mailsTo(h, 'victim@example.com')).findLast((m) => /Subject: Reset your password/.test(m))!,
      '/portal/reset',
    ),
  )
  const form = await owner.get(reset.pathname + reset.search)
  const token = /name="token" value="([^"]+)"/.exec(form.body)?.[1] ?? reset.pathname.split('/').at(-1)!
  assert.equal((await owner.post('/portal/reset', { token, password: NEW_PASSWORD })).statusCode, 200)
  assert.equal((await client(h.app).get(first.pathname)).statusCode, 400, 'the reset cancelled the change')

  // A change from the account page cancels one too.
  h.clock.advance(60_000)
  const again = await loggedIn(h, 'victim@example.com', NEW_PASSWORD)
  await askForAddress(again, 'attacker@example.com', NEW_PASSWORD)
  const second = new URL(
    linkIn(
      (await mailsTo(h, 'attacker@example.com')).findLast((m) => m.includes('/portal/account/email/'))!,
      '/portal/account/email/',
    ),
  )
  assert.notEqual(second.pathname, first.pathname)
  await again.get('/portal/account')
  assert.equal(
    (
      await again.post('/portal/account/password', {
        current_password: NEW_PASSWORD,
        new_password: 'amber-meadow-falcon-tundra',
      })
    ).statusCode,
    303,
  )
  const opened = await client(h.app).get(second.pathname)
  assert.equal(opened.statusCode, 400)
  assert.equal(await canLogIn(h, 'victim@example.com', 'amber-meadow-falcon-tundra'), true)
})
