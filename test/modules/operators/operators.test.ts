// The operators repository against the real database: creation with a setup link, the setup (a secret offered per
// browser, used once, for 24 hours), TOTP steps and recovery codes accepted once (also when two requests race),
// disabling and roles, and the audit entry of each change.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { SETUP_LINK_TTL_MS } from '../../../src/modules/operators/operators.repository.js'
import { totpStep } from '../../../src/modules/sign-in/totp.js'
import { consoleHarness, setUpOperator } from '../../helpers/console.js'

const cli = { kind: 'cli' as const, user: 'alice' }

test('create: a setup link, the address normalised and unique, and operator.created on record', async (t) => {
  const h = await consoleHarness(t)
  const operators = h.services.operators!
  const { operator, setupToken } = await operators.create({ email: 'Ops@Example.COM', role: 'support', actor: cli })
  assert.match(operator.id, /^op_[0-9a-f]{20}$/)
  assert.equal(operator.email, 'Ops@example.com')
  assert.deepEqual(
    { role: operator.role, setUp: operator.setUp, disabledAt: operator.disabledAt },
    { role: 'support', setUp: false, disabledAt: null },
  )
  assert.match(setupToken, /^[\w-]{43}$/)
  await assert.rejects(operators.create({ email: 'ops@example.com', role: 'admin', actor: cli }), /exists/)
  await assert.rejects(
    operators.create({ email: 'two@a.example,b@b.example', role: 'admin', actor: cli }),
    /single address/,
  )
  assert.deepEqual(
    (await operators.list()).map((o) => o.email),
    ['Ops@example.com'],
  )
  assert.equal((await operators.findByEmail('OPS@example.com'))?.id, operator.id)

  const [entry] = await h.services.audit.list({ action: 'operator.created', limit: 10 })
  assert.deepEqual(entry!.actor, { kind: 'cli', id: 'alice', email: null, address: null })
  assert.deepEqual(entry!.target, { kind: 'operator', id: operator.id })
  assert.deepEqual(entry!.changes, { after: { email: 'Ops@example.com', role: 'support' } })
  // The token is stored only as a hash.
  const rows = await h.handle.db.selectFrom('operator_tokens').selectAll().execute()
  assert.ok(
    rows.every(
      (r) =>
        r.token_hash !== setupToken &&
        !Object.values(r)
          .map(String)
          .some((v) => v.includes(setupToken)),
    ),
  )
  const idn = await operators.create({ email: 'ops@BÜCHER.example', role: 'support', actor: cli })
  assert.equal(
    (await operators.findByEmail('ops@xn--bcher-kva.example'))?.id,
    idn.operator.id,
    'one operator per address, IDNA-normalised',
  )
  await assert.rejects(operators.create({ email: 'OPS@xn--bcher-kva.example', role: 'admin', actor: cli }), /exists/)
})

test(
  'setup: looking makes nothing; each password gets a secret of its own, ' +
    'voiding the earlier; completed once, from its browser; dead after 24 hours',
  async (t) => {
    const h = await consoleHarness(t)
    const operators = h.services.operators!
    const { operator, setupToken } = await operators.create({ email: 'setup@example.com', role: 'admin', actor: cli })
    assert.equal((await operators.setupLink(setupToken))?.id, operator.id)
    assert.deepEqual(
      await operators.offered(setupToken, undefined),
      { operator: await operators.get(operator.id) },
      'looking made no secret',
    )
    const first = await operators.offerSecret(setupToken, { passwordHash: 'scrypt$first', browser: 'browser-a' })
    const second = await operators.offerSecret(setupToken, { passwordHash: 'scrypt$second', browser: 'browser-b' })
    assert.ok(first && second && first.secret !== second.secret)
    assert.equal((await operators.offered(setupToken, 'browser-a'))?.secret, undefined, 'the earlier offer is void')
    assert.equal((await operators.offered(setupToken, 'browser-b'))?.secret, second.secret)
    const step = totpStep(h.clock.now())
    const input = { browser: 'browser-b', secret: second.secret, step, address: '192.0.2.1' }
    assert.equal(
      await operators.completeSetup(setupToken, { ...input, secret: first.secret }),
      undefined,
      'only the current offer',
    )
    assert.equal(
      await operators.completeSetup(setupToken, { ...input, browser: 'browser-a' }),
      undefined,
      'only from its own browser',
    )
    assert.equal(
      await operators.completeSetup(setupToken, { ...input, secret: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }),
      undefined,
      'only the offered secret',
    )
    const [a, b] = await Promise.all([
      operators.completeSetup(setupToken, input),
      operators.completeSetup(setupToken, input),
    ])
    assert.equal([a, b].filter(Boolean).length, 1, 'two submissions race: one completes')
    const done = (a ?? b)!
    assert.equal(done.recoveryCodes.length, 10)
    assert.equal(new Set(done.recoveryCodes).size, 10)
    assert.ok(done.operator.setUp)
    assert.equal(
      (await operators.credentials('setup@example.com'))?.passwordHash,
      'scrypt$second',
      'the password sent with the confirmed offer',
    )
    assert.equal(await operators.setupLink(setupToken), undefined, 'used up')
    assert.equal(
      await operators.offerSecret(setupToken, { passwordHash: 'scrypt$late', browser: 'browser-c' }),
      undefined,
    )
    const [token] = await h.handle.db.selectFrom('operator_tokens').selectAll().execute()
    assert.deepEqual(
      [token!.pending_secret, token!.pending_password_hash, token!.pending_browser],
      [null, null, null],
      'the used token keeps none of it',
    )
    const [entry] = await h.services.audit.list({ action: 'operator.setup_completed', limit: 5 })
    assert.equal(entry?.actor.address, '192.0.2.1')

    const late = await operators.create({ email: 'late@example.com', role: 'support', actor: cli })
    const offer = await operators.offerSecret(late.setupToken, { passwordHash: 'scrypt$x', browser: 'b' })
    h.clock.advance(SETUP_LINK_TTL_MS - 1000)
    assert.ok(await operators.setupLink(late.setupToken))
    h.clock.advance(1000)
    assert.equal(await operators.setupLink(late.setupToken), undefined, 'expired after 24 hours')
    assert.equal(
      await operators.completeSetup(late.setupToken, {
        browser: 'b',
        secret: offer!.secret,
        step: totpStep(h.clock.now()),
        address: '192.0.2.1',
      }),
      undefined,
    )
  },
)

test('a TOTP step is accepted once, also by two requests at the same time; an earlier step never again', async (t) => {
  const h = await consoleHarness(t)
  const operator = await setUpOperator(h, { role: 'support' })
  const operators = h.services.operators!
  const step = totpStep(h.clock.now())
  assert.equal(await operators.acceptTotpStep(operator.id, step), false, 'the setup used this step')
  const results = await Promise.all(Array.from({ length: 5 }, () => operators.acceptTotpStep(operator.id, step + 1)))
  assert.equal(results.filter(Boolean).length, 1)
  assert.equal(await operators.acceptTotpStep(operator.id, step), false)
  assert.equal(await operators.acceptTotpStep(operator.id, step + 2), true)
})

test('recovery codes: stored as hashes, each used once (case and dash do not matter), a race used once', async (t) => {
  const h = await consoleHarness(t)
  const operator = await setUpOperator(h, { role: 'support' })
  const operators = h.services.operators!
  for (const code of operator.recoveryCodes) assert.match(code, /^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{5}$/)
  const stored = (await h.handle.db.selectFrom('operator_recovery_codes').selectAll().execute())
    .map((r) => r.code_hash)
    .join(' ')
  for (const code of operator.recoveryCodes)
    assert.ok(!stored.includes(code) && !stored.includes(code.replace('-', '')))
  const [first, second] = operator.recoveryCodes
  assert.equal(await operators.useRecoveryCode(operator.id, ` ${first!.toUpperCase().replace('-', '')} `), true)
  assert.equal(await operators.useRecoveryCode(operator.id, first!), false)
  const race = await Promise.all([
    operators.useRecoveryCode(operator.id, second!),
    operators.useRecoveryCode(operator.id, second!),
  ])
  assert.deepEqual(race.sort(), [false, true])
  assert.equal(await operators.recoveryCodesLeft(operator.id), 8)
  const other = await setUpOperator(h, { role: 'support' })
  assert.equal(await operators.useRecoveryCode(other.id, operator.recoveryCodes[2]!), false, "another operator's code")
})

test('disable ends every session and the setup link; set-role records before and after; both on record', async (t) => {
  const h = await consoleHarness(t)
  const operators = h.services.operators!
  const operator = await setUpOperator(h, { role: 'support' })
  await operators.createSession(operator.id, 60_000, { userAgent: null, address: null })
  const changed = await operators.setRole(operator.id, 'admin', cli)
  assert.equal(changed.role, 'admin')
  const [roleEntry] = await h.services.audit.list({ action: 'operator.role_changed', limit: 5 })
  assert.deepEqual(roleEntry!.changes, { email: operator.email, before: { role: 'support' }, after: { role: 'admin' } })

  const disabled = await operators.disable(operator.id, cli)
  assert.ok(disabled.disabledAt)
  assert.equal(
    (await h.handle.db.selectFrom('operator_sessions').selectAll().where('operator_id', '=', operator.id).execute())
      .length,
    0,
  )
  assert.equal(await operators.credentials(operator.email), undefined, 'a disabled operator cannot log in')
  assert.equal(await operators.findUser(operator.id), undefined)
  await assert.rejects(operators.setRole(operator.id, 'support', cli), /disabled/)
  await assert.rejects(operators.disable('op_nobody', cli), /no operator/)
  assert.equal((await h.services.audit.list({ action: 'operator.disabled', limit: 5 })).length, 1)

  const pending = await operators.create({ email: 'pending@example.com', role: 'support', actor: cli })
  await operators.disable(pending.operator.id, cli)
  assert.equal(await operators.setupLink(pending.setupToken), undefined, "a disabled operator's setup link is dead")
})
