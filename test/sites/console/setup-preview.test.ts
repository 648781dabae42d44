// A setup link seen by someone besides its operator (issue 32): a chat tool's link preview, or whoever else has the
// link. The link alone shows no secret; a secret is made for the browser that sent the new password, shown to it
// only, and bound to the operator only when that browser confirms it with a code. A secret shown to anybody else,
// or to an abandoned visit, never logs in.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { totpCode } from '../../../src/modules/sign-in/totp.js'
import { consoleHarness, logIn, OPERATOR_PASSWORD, secretsIn, setUpThroughPages } from '../../helpers/console.js'
import { client } from '../../helpers/portal.js'

const cli = { kind: 'cli' as const, user: 'test' }
const SLACKBOT = 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)'

test('a link preview, then the operator sets up: the preview saw no secret, and nothing it saw logs in', async (t) => {
  const h = await consoleHarness(t)
  const email = 'ada@ops.example'
  const { setupToken } = await h.services.operators!.create({ email, role: 'admin', actor: cli })
  const link = `/console/setup/${setupToken}`
  // The chat tool unfurls the link as it is pasted: a GET, a User-Agent of its own, no cookie.
  const preview = await h.app.inject({ url: link, headers: { 'user-agent': SLACKBOT } })
  assert.equal(preview.statusCode, 200)
  const previewed = secretsIn(preview.body)

  const now = h.clock.now()
  const { secret } = await setUpThroughPages(client(h.app), setupToken, OPERATOR_PASSWORD, now)
  // Codes from the preview's copy (if it was given one) never log in; the operator's own does.
  for (const stolen of previewed)
    assert.equal(
      (await logIn(client(h.app), { email, password: OPERATOR_PASSWORD }, totpCode(stolen, now + 30_000))).statusCode,
      400,
    )
  assert.deepEqual(previewed, [], 'the preview was shown no secret')
  assert.equal(
    (await logIn(client(h.app), { email, password: OPERATOR_PASSWORD }, totpCode(secret, now + 30_000))).statusCode,
    303,
  )
})

test(
  'another browser with the link gets a fresh secret, which voids the first; ' +
    'a code counts only from its own browser',
  async (t) => {
    const h = await consoleHarness(t)
    const email = 'grace@ops.example'
    const { setupToken } = await h.services.operators!.create({ email, role: 'support', actor: cli })
    const link = `/console/setup/${setupToken}`
    const now = h.clock.now()
    const [operator, other] = [client(h.app), client(h.app)]
    const offer = async (c: typeof operator, password = OPERATOR_PASSWORD) => {
      await c.get(link)
      const page = await c.post(link, { password })
      assert.equal(page.statusCode, 200, page.body)
      return secretsIn(page.body)[0]!
    }

    const first = await offer(operator)
    // Someone else who has the link sends a password too: a secret of its own, and the operator's first one is void.
    const theirs = await offer(other, `someone else ${OPERATOR_PASSWORD}`)
    assert.notEqual(theirs, first)
    const voided = await operator.post(`${link}/confirm`, { code: totpCode(first, now) })
    assert.equal(voided.statusCode, 409, voided.body)
    assert.match(voided.body, /started again in another browser/)
    assert.deepEqual(secretsIn(voided.body), [], 'the other browser’s secret is not shown here')

    // The operator starts again (voiding the other's); the other browser cannot confirm its own, nor the operator's.
    const mine = await offer(operator)
    assert.ok(![first, theirs].includes(mine))
    for (const secret of [theirs, mine])
      assert.equal((await other.post(`${link}/confirm`, { code: totpCode(secret, now) })).statusCode, 409)
    // A browser that never sent the password (no setup cookie) is refused the same way.
    const stranger = client(h.app)
    await stranger.get(link)
    assert.equal((await stranger.post(`${link}/confirm`, { code: totpCode(mine, now) })).statusCode, 409)

    const done = await operator.post(`${link}/confirm`, { code: totpCode(mine, now) })
    assert.equal(done.statusCode, 200, done.body)
    assert.match(done.body, /Save your recovery codes|recovery codes/)
    // Single use, as before: the link is dead for everyone now.
    assert.equal((await other.post(link, { password: OPERATOR_PASSWORD })).statusCode, 410)
    assert.equal((await operator.get(link)).statusCode, 410)

    // Only the confirmed secret logs in; the abandoned and the other browser's never do.
    for (const secret of [first, theirs])
      assert.equal(
        (await logIn(client(h.app), { email, password: OPERATOR_PASSWORD }, totpCode(secret, now + 30_000))).statusCode,
        400,
      )
    assert.equal(
      (await logIn(client(h.app), { email, password: OPERATOR_PASSWORD }, totpCode(mine, now + 30_000))).statusCode,
      303,
    )
    const [entry] = await h.services.audit.list({ action: 'operator.setup_completed', limit: 5 })
    assert.equal(entry?.actor.address, '127.0.0.1', 'the setup is on record with the address it came from')
  },
)
