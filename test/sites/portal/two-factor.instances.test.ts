// Second factors across instances (PostgreSQL + Redis pass only): two apps on one database, as two servers behind a
// load balancer. A TOTP code used on one is refused on the other (its step is recorded in the database in one
// conditional statement), and second factors an operator resets on one are asked for by neither, from the very next
// log-in (nothing is cached).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { totpCode } from '../../../src/modules/sign-in/totp.js'
import { postgresOnlyReason } from '../../helpers/backend.js'
import { client, GOOD_PASSWORD, portalHarness, secondPortalInstance, signedUpUser } from '../../helpers/portal.js'

const EMAIL = 'ada@example.com'

test('a code used on one instance is refused on the other; a reset on one is seen by the other at once', {
  skip: postgresOnlyReason(),
}, async (t) => {
  const h = await portalHarness(t)
  const second = await secondPortalInstance(t, h)

  const owner = await signedUpUser(h, EMAIL)
  await owner.get('/portal/account')
  const start = await owner.post('/portal/account/app', {})
  const secret = /id="totp-secret">([A-Z2-7 ]+)</.exec(start.body)![1]!.replace(/ /g, '')
  assert.equal(
    (await owner.post('/portal/account/app/confirm', { code: totpCode(secret, h.clock.now()) })).statusCode,
    200,
  )
  h.clock.advance(60_000)

  const passwordStep = async (app: typeof h.app) => {
    const c = client(app)
    await c.get('/portal/login')
    const step = await c.post('/portal/login', { email: EMAIL, password: GOOD_PASSWORD })
    return { c, step }
  }
  const code = totpCode(secret, h.clock.now())
  const onFirst = await passwordStep(h.app)
  const onSecond = await passwordStep(second.app)
  assert.equal(onFirst.step.statusCode, 200)
  assert.equal(onSecond.step.statusCode, 200, 'the second instance asks for a code too')
  assert.equal((await onFirst.c.post('/portal/login/code', { code })).statusCode, 303)
  const replay = await onSecond.c.post('/portal/login/code', { code })
  assert.equal(replay.statusCode, 400, 'the code used on the first instance is refused on the second')

  const user = (await h.services.portal!.repo.findUserByEmail(EMAIL))!
  await h.services.twoFactor.resetAll(user, { kind: 'operator', operatorId: null, email: 'ops@example.com' })
  const resetAt = performance.now()
  const after = await passwordStep(second.app)
  const elapsed = performance.now() - resetAt
  assert.equal(after.step.statusCode, 303, 'after the reset, the password alone signs in on the other instance')
  assert.ok(elapsed < 1000, `within a second (${elapsed.toFixed(0)} ms)`)
  t.diagnostic(`the other instance let the password alone in ${elapsed.toFixed(0)} ms after the reset`)
})
