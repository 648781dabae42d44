// The request log an operator searches (http/request-log.ts): one line per request with who (account and key id,
// never the key), what went wrong (the error code), the client's User-Agent and the rate limiter's decision
// (allowed with the requests remaining, limited, banned); never a key, password, cookie or link token.
import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { bearer, startHarness } from '../helpers/harness.js'
import { client, GOOD_PASSWORD, linkIn, mails, portalHarness, signedUpUser, tokenOf } from '../helpers/portal.js'

type Line = Record<string, unknown> & { msg: string }

function capture() {
  const raw: string[] = []
  const logger = { level: 'info', stream: { write: (line: string) => void raw.push(line) } }
  const requests = () => raw.map((l) => JSON.parse(l) as Line).filter((l) => l.msg === 'request')
  return { raw, logger, requests, text: () => raw.join('') }
}

async function apiHarness(t: TestContext, env: Record<string, string> = {}) {
  const log = capture()
  const h = await startHarness(t, { env, logger: log.logger })
  return { h, log }
}

test(
  'a request with an accepted key: account and key id, ' +
    'User-Agent, allowed with the requests remaining; never the key',
  async (t) => {
    const { h, log } = await apiHarness(t)
    const account = await h.newAccount({ plan: 'enterprise', perMinute: 5, perDay: 1000 })
    const response = await h.app.inject({
      url: '/v1/pets?limit=2',
      headers: { ...bearer(account.key), 'user-agent': 'petstore-sdk/1.2 (test)' },
    })
    assert.equal(response.statusCode, 200)
    const [line, ...more] = log.requests()
    assert.equal(more.length, 0)
    const { time, pid, hostname, reqId, ms, ...rest } = line!
    assert.equal(typeof reqId, 'string')
    assert.equal(typeof ms, 'number')
    assert.deepEqual(rest, {
      level: 30,
      msg: 'request',
      method: 'GET',
      path: '/v1/pets',
      client: '127.0.0.1',
      status: 200,
      accountId: account.accountId,
      keyId: account.keyId,
      userAgent: 'petstore-sdk/1.2 (test)',
      rateLimit: 'allowed',
      rateLimitRemaining: Number(response.headers['x-ratelimit-remaining']),
    })
    assert.equal(rest.rateLimitRemaining, 4)
    assert.ok(!log.text().includes(account.key.slice('ps_test_'.length)), 'the key is in the log')
  },
)

test('an error answer has its code; a refused key has no account, and the key is not logged', async (t) => {
  const { h, log } = await apiHarness(t)
  const guess = 'ps_test_guessedguessedguessedguessed0000'
  assert.equal((await h.app.inject({ url: '/v1/pets', headers: bearer(guess) })).statusCode, 401)
  assert.equal((await h.app.inject({ url: '/nowhere' })).statusCode, 404)
  const [refused, missing] = log.requests()
  assert.equal(refused!.errorCode, 'invalid_api_key')
  assert.equal(refused!.status, 401)
  assert.equal(refused!.accountId, undefined)
  assert.equal(refused!.rateLimit, 'allowed', 'a refused key counts against the address')
  assert.equal(missing!.errorCode, 'not_found')
  assert.ok(!log.text().includes('guessedguessed'), 'the refused key is in the log')
})

test('limited, then banned: the line says which, with the error code', async (t) => {
  const { h, log } = await apiHarness(t, { RATE_LIMIT_BAN_THRESHOLD: '1' })
  const account = await h.newAccount({ plan: 'enterprise', perMinute: 1, perDay: 1000 })
  const codes: number[] = []
  for (let i = 0; i < 4; i++)
    codes.push((await h.app.inject({ url: '/v1/pets', headers: bearer(account.key) })).statusCode)
  assert.deepEqual(codes, [200, 429, 429, 429])
  const lines = log.requests().map((l) => [l.status, l.errorCode, l.rateLimit, l.rateLimitRemaining, l.accountId])
  assert.deepEqual(lines, [
    [200, undefined, 'allowed', 0, account.accountId],
    [429, 'rate_limit_exceeded', 'limited', 0, account.accountId],
    // The second refusal in the window passes the threshold of 1: the ban starts with it.
    [429, 'temporarily_banned', 'banned', undefined, account.accountId],
    [429, 'temporarily_banned', 'banned', undefined, account.accountId],
  ])
})

test('the portal: no password, session cookie or link token in the log; the link path shows …', async (t) => {
  const log = capture()
  const h = await portalHarness(t, { logger: log.logger })
  const email = 'logged@example.com'
  const c = await signedUpUser(h, email)
  await c.get('/portal')
  // A reset link, requested and opened: its token is in the path.
  const anonymous = client(h.app)
  await anonymous.get('/portal/reset-request')
  await anonymous.post('/portal/reset-request', { email })
  const mail = (await mails(h, h.outbox)).findLast((m) => m.includes('/portal/reset/'))!
  const reset = new URL(linkIn(mail, '/portal/reset/'))
  await anonymous.get(reset.pathname)
  const verify = new URL(
    linkIn((await mails(h, h.outbox)).find((m) => m.includes('/portal/verify'))!, '/portal/verify'),
  )
  // An invitation, sent and opened: its token is in the path too.
  await c.get('/portal/members')
  await c.post('/portal/members/invite', { email: 'invited@example.com', role: 'viewer' })
  const invitation = new URL(
    linkIn((await mails(h, h.outbox)).findLast((m) => m.includes('/portal/invitations/'))!, '/portal/invitations/'),
  )
  await anonymous.get(invitation.pathname)

  const text = log.text()
  assert.ok(!text.includes(GOOD_PASSWORD), 'the password is in the log')
  for (const [name, value] of c.jar) assert.ok(!text.includes(value), `the ${name} cookie is in the log`)
  for (const token of [
    tokenOf(reset.href),
    tokenOf(verify.href),
    tokenOf(invitation.href),
    verify.searchParams.get('token'),
  ].filter((v): v is string => !!v)) {
    assert.ok(!text.includes(token), 'a link token is in the log')
  }
  const paths = log.requests().map((l) => l.path)
  assert.ok(paths.includes('/portal/reset/…'), paths.join(' '))
  assert.ok(paths.includes('/portal/invitations/…'), paths.join(' '))
  assert.ok(paths.includes('/portal/login'), paths.join(' '))
})
