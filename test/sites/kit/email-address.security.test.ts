// Item 3 of issue 23: one mailbox per address. Lists, display names, quoted local parts and invisible characters
// are refused before anything is mailed; the domain is IDNA-normalised (one account for both spellings); the
// mail server is given exactly one envelope recipient (a real SMTP conversation records it).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseEmailAddress } from '../../../src/kernel/email-address.js'
import { client, mails, ORIGIN, portalHarness } from '../../helpers/portal.js'
import { startSmtpSink } from '../../helpers/smtp-sink.js'
import { ownerEmails } from '../../../src/modules/integrators/account-owners.js'

const PASSWORD = 'violet-harbor-quartz-lantern'
const REFUSED = [
  'someone,b@evil.example',
  'someone@example.com,b@evil.example',
  'someone@example.com;b@evil.example',
  'Someone <b@evil.example>',
  '<b@evil.example>',
  '"b@evil.example"@example.com',
  'some one@example.com',
  'someone@example.com\r\nBcc: b@evil.example',
  'someone@exa\u202Emple.com',
  'some\u200Bone@example.com',
  'someone@localhost',
  `${'a'.repeat(250)}@example.com`,
]

test(
  'an email field takes exactly one address: ' + 'lists, names, quotes, whitespace and control characters are refused',
  async (t) => {
    const h = await portalHarness(t)
    const c = client(h.app)
    for (const email of REFUSED) {
      await c.get('/portal/signup')
      const signup = await c.post('/portal/signup', { email, password: PASSWORD })
      assert.equal(signup.statusCode, 400, JSON.stringify(email))
      assert.match(signup.body, /role="alert"/)
      await c.get('/portal/reset-request')
      assert.equal((await c.post('/portal/reset-request', { email })).statusCode, 400, JSON.stringify(email))
    }
    assert.deepEqual(await mails(h, h.outbox), [], 'nothing was mailed')
  },
)

test('a local part outside printable ASCII is refused with a message saying so', async (t) => {
  const h = await portalHarness(t)
  const c = client(h.app)
  await c.get('/portal/signup')
  const response = await c.post('/portal/signup', { email: 'jürgen@example.com', password: PASSWORD })
  assert.equal(response.statusCode, 400)
  assert.match(response.body, /before the @ must use plain ASCII/)
})

test(
  'the domain is lower-cased and IDNA-normalised: ' + 'bücher.example and xn--bcher-kva.example are one account',
  async (t) => {
    assert.deepEqual(parseEmailAddress('Ana@BÜCHER.example'), {
      email: 'Ana@xn--bcher-kva.example',
      key: 'ana@xn--bcher-kva.example',
    })
    const h = await portalHarness(t)
    const c = client(h.app)
    await c.get('/portal/signup')
    assert.equal((await c.post('/portal/signup', { email: 'ana@bücher.example', password: PASSWORD })).statusCode, 200)
    // the first sign-up's mail job runs at this instant, before the clock moves
    await h.services.portal!.mailer.settled()
    h.clock.advance(61_000) // a fresh link is mailed at most once a minute
    await c.get('/portal/signup')
    assert.equal(
      (await c.post('/portal/signup', { email: 'ANA@xn--bcher-kva.example', password: PASSWORD })).statusCode,
      200,
    )
    const sent = await mails(h, h.outbox)
    assert.equal(sent.length, 2)
    for (const mail of sent) assert.match(mail, /^To: ana@xn--bcher-kva\.example$/m)
    const user = await h.services.portal!.repo.findUserByEmail('ana@BÜCHER.example')
    assert.equal(user?.email, 'ana@xn--bcher-kva.example')
    // One user (the second sign-up replaced the unverified first one's password rather than making an account).
    const emails = await ownerEmails(h.services.db)
    assert.equal([...emails.values()].filter((e) => e.endsWith('xn--bcher-kva.example')).length, 1)
  },
)

test('the mail server is given exactly one envelope recipient, the checked address', async (t) => {
  const smtp = await startSmtpSink(t)
  const h = await portalHarness(t, { env: { MAIL_URL: smtp.url } })
  const c = client(h.app, ORIGIN)
  await c.get('/portal/signup')
  assert.equal((await c.post('/portal/signup', { email: 'one@example.com', password: PASSWORD })).statusCode, 200)
  await c.get('/portal/signup')
  assert.equal(
    (await c.post('/portal/signup', { email: 'one@example.com,two@evil.example', password: PASSWORD })).statusCode,
    400,
  )
  await h.services.portal!.mailer.settled()
  assert.equal(smtp.received.length, 1)
  assert.deepEqual(smtp.received[0]!.to, ['one@example.com'])
  assert.equal(smtp.received[0]!.from, 'no-reply@petstore.example')
  assert.match(smtp.received[0]!.data, /^To: one@example\.com$/m)
})
