// Every console log-in attempt is an audit entry with the client address (issue 32): a success, a wrong password,
// a wrong code, an email no operator has (as typed, cut to a length: anyone can send these), and an attempt refused
// by the throttle (429); never the password typed.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { LOGIN_FAILURES_ALLOWED } from '../../../src/modules/sign-in/login-throttle.js'
import { consoleHarness, logInFrom, setUpOperator } from '../../helpers/console.js'
import type { Services } from '../../../src/main/services.js'

const WRONG = 'not the password at all'

const loginEntries = async (services: Services) =>
  (await services.audit.list({ limit: 100 }))
    .filter((e) => e.action === 'operator.login' || e.action === 'operator.login_failed')
    .reverse()

test('success, wrong password, wrong code and an unknown email are each on record, with the address', async (t) => {
  const h = await consoleHarness(t)
  const op = await setUpOperator(h, { role: 'support' })
  const now = h.clock.now()
  assert.equal(
    (await logInFrom(h.app, '198.51.100.1', { email: op.email, password: op.password, code: op.codeAt(now + 30_000) }))
      .statusCode,
    303,
  )
  assert.equal(
    (await logInFrom(h.app, '198.51.100.2', { email: op.email, password: WRONG, code: op.codeAt(now + 60_000) }))
      .statusCode,
    400,
  )
  assert.equal(
    (await logInFrom(h.app, '198.51.100.3', { email: op.email, password: op.password, code: '000000' })).statusCode,
    400,
  )
  const typed = 'Nobody.Here@Ops.Example'
  assert.equal(
    (await logInFrom(h.app, '198.51.100.4', { email: typed, password: WRONG, code: '123456' })).statusCode,
    400,
  )

  const entries = await loginEntries(h.services)
  assert.deepEqual(
    entries.map((e) => [e.action, e.actor.address, e.changes?.failed ?? e.changes?.method]),
    [
      ['operator.login', '198.51.100.1', 'totp'],
      ['operator.login_failed', '198.51.100.2', 'password'],
      ['operator.login_failed', '198.51.100.3', 'code'],
      ['operator.login_failed', '198.51.100.4', 'unknown_email'],
    ],
  )
  // The unknown email as typed (not normalised), no operator as actor or target, and never the password.
  const unknown = entries[3]!
  assert.deepEqual(unknown.actor, { kind: 'operator', id: null, email: typed, address: '198.51.100.4' })
  assert.equal(unknown.target, null)
  assert.ok(!JSON.stringify(await h.services.audit.list({ limit: 100 })).includes(WRONG), 'no password typed is stored')
  // Found by the console's actor filter, as any other actor.
  assert.equal((await h.services.audit.list({ actor: typed.toLowerCase(), limit: 5 })).length, 1)
})

test('an unknown email is stored cut to 100 characters: junk typed by anyone cannot grow an entry', async (t) => {
  const h = await consoleHarness(t)
  const long = `${'x'.repeat(250)}@ops.example`
  assert.equal(
    (await logInFrom(h.app, '198.51.100.9', { email: long, password: WRONG, code: '123456' })).statusCode,
    400,
  )
  const [entry] = await loginEntries(h.services)
  assert.equal(entry!.actor.email, `${long.slice(0, 99)}…`)
  assert.equal(entry!.changes?.emailLength, long.length, 'how long it was, for whoever investigates')
})

test('attempts the throttle refuses (429) are on record too: for an operator and for an unknown email', async (t) => {
  const h = await consoleHarness(t)
  const op = await setUpOperator(h, { role: 'admin' })
  const address = '203.0.113.5'
  for (const email of [op.email, 'ghost@ops.example']) {
    for (let i = 0; i < LOGIN_FAILURES_ALLOWED; i++)
      assert.equal((await logInFrom(h.app, address, { email, password: WRONG, code: '000000' })).statusCode, 400)
    const refused = await logInFrom(h.app, address, {
      email,
      password: email === op.email ? op.password : WRONG,
      code: op.codeAt(h.clock.now() + 30_000),
    })
    assert.equal(refused.statusCode, 429)
  }
  const entries = await loginEntries(h.services)
  assert.equal(entries.length, 2 * (LOGIN_FAILURES_ALLOWED + 1))
  assert.ok(entries.every((e) => e.actor.address === address))
  const throttled = entries.filter((e) => e.changes?.failed === 'throttled')
  assert.deepEqual(
    throttled.map((e) => [e.actor.id, e.actor.email, e.target?.id ?? null]),
    [
      [op.id, op.email, op.id],
      [null, 'ghost@ops.example', null],
    ],
  )
})
