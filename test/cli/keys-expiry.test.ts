// `petstore keys set-expiry KEY_ID --expires ISO|never`: prints the key as the other key commands do, is on record
// as key.expiry_changed (before/after, the CLI's user), the app over the same file refuses the key from the new
// instant on, and a bad instant, an unknown key, a revoked or rolled key each get one line and exit 2.
import assert from 'node:assert/strict'
import os from 'node:os'
import { test } from 'node:test'
import type { AuditEvent } from '../../src/modules/audit/audit-event.js'
import { appOnFile } from '../helpers/app-on-file.js'
import { cliOn, oneLineFailure } from '../helpers/cli.js'
import { bearer, errorOf } from '../helpers/harness.js'
import { pollUntil } from '../helpers/within.js'

interface Key {
  id: string
  key: string
  expiresAt: string | null
  state: string
}

test('keys set-expiry: a new instant, then never; printed like the other key commands and on record', async (t) => {
  const cli = cliOn(t)
  const { id: accountId } = await cli.json(['accounts', 'create', '--name', 'Expiring'])
  const key = await cli.json<Key>([
    'keys',
    'create',
    '--account',
    accountId,
    '--name',
    'ci',
    '--expires',
    '2099-06-30T00:00:00Z',
  ])

  const sooner = await cli.json<Key>(['keys', 'set-expiry', key.id, '--expires', '2098-01-01T02:00:00+02:00'])
  assert.equal(sooner.id, key.id)
  assert.equal(sooner.expiresAt, '2098-01-01T00:00:00.000Z')
  assert.equal(sooner.state, 'active')
  assert.ok(!('key' in sooner), 'no secret printed')
  const plain = await cli.run(['keys', 'set-expiry', key.id, '--expires', 'never'])
  assert.equal(plain.code, 0, plain.stderr)
  for (const part of [`set the expiry of ${key.id}`, '"ci"', 'ACTIVE', 'expires never'])
    assert.ok(plain.stdout.includes(part), `${part} in ${plain.stdout}`)
  const { keys } = await cli.json<{ keys: Key[] }>(['keys', 'list', '--account', accountId])
  assert.equal(keys[0]!.expiresAt, null)
  await cli.json(['keys', 'set-expiry', key.id, '--expires', 'never'])

  const { events } = await cli.json<{ events: AuditEvent[] }>(['audit', 'list', '--account', accountId])
  const changes = events.filter((e) => e.action === 'key.expiry_changed')
  assert.equal(changes.length, 2, 'never → never is no change')
  assert.deepEqual(
    changes.map((e) => [e.changes!.before, e.changes!.after]),
    [
      [{ expiresAt: '2098-01-01T00:00:00.000Z' }, { expiresAt: null }],
      [{ expiresAt: '2099-06-30T00:00:00.000Z' }, { expiresAt: '2098-01-01T00:00:00.000Z' }],
    ],
  )
  for (const e of changes) {
    assert.deepEqual(e.actor, { kind: 'cli', id: os.userInfo().username, email: null, address: null })
    assert.deepEqual(e.target, { kind: 'key', id: key.id })
  }
  const human = await cli.run(['audit', 'list', '--account', accountId])
  assert.ok(human.stdout.includes('key.expiry_changed'), human.stdout)
})

test('keys set-expiry: the app over the same file refuses the key from the new instant on', async (t) => {
  const cli = cliOn(t)
  const { id: accountId } = await cli.json(['accounts', 'create', '--name', 'Ending'])
  const key = await cli.json<Key>(['keys', 'create', '--account', accountId])
  const app = await appOnFile(t, cli.file)
  const call = () => app.inject({ url: '/v1/pets', headers: bearer(key.key) })
  assert.equal((await call()).statusCode, 200)
  // Far enough ahead for a slow CLI start to still be before it; the service test moves a clock instead.
  const instant = new Date(Math.ceil((Date.now() + 4_000) / 1000) * 1000).toISOString()
  await cli.json(['keys', 'set-expiry', key.id, '--expires', instant])
  if (Date.now() < Date.parse(instant) - 200) assert.equal((await call()).statusCode, 200, 'before the new instant')
  const refused = await pollUntil(
    'refused after the new expiry',
    async () => {
      const r = await call()
      return r.statusCode === 401 ? r : undefined
    },
    15_000,
    100,
  )
  assert.ok(Date.now() >= Date.parse(instant), 'not before the instant')
  assert.equal(errorOf(refused).message, `This API key expired at ${instant}.`)
})

test(
  'keys set-expiry refusals: one line, exit 2 for a bad ' +
    'instant and 1 for a key that cannot take one, nothing changed',
  async (t) => {
    const cli = cliOn(t)
    const { id: accountId } = await cli.json(['accounts', 'create', '--name', 'Refused'])
    const key = await cli.json<Key>(['keys', 'create', '--account', accountId])
    const revoked = await cli.json<Key>(['keys', 'create', '--account', accountId])
    await cli.json(['keys', 'revoke', revoked.id])
    const rolled = await cli.json<{ created: Key }>(['keys', 'roll', key.id, '--grace', '3600'])

    for (const [args, reason, code] of [
      [[rolled.created.id, '--expires', '2020-01-01T00:00:00Z'], /not in the future/, 2],
      [[rolled.created.id, '--expires', '2099-06-30'], /ISO 8601 instant/, 2],
      [[rolled.created.id, '--expires', 'tomorrow'], /ISO 8601 instant/, 2],
      [['key_unknown', '--expires', 'never'], /no API key with id key_unknown/, 1],
      [
        [revoked.id, '--expires', 'never'],
        new RegExp(`API key ${revoked.id} is revoked; only an active key can be given a new expiry`),
        1,
      ],
      [
        [key.id, '--expires', 'never'],
        new RegExp(`API key ${key.id} was rolled; .*its replacement ${rolled.created.id}`),
        1,
      ],
    ] as const) {
      const r = await cli.run(['keys', 'set-expiry', ...args])
      assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`)
      assert.match(oneLineFailure(r), reason)
    }
    const missing = await cli.run(['keys', 'set-expiry', key.id])
    assert.notEqual(missing.code, 0, '--expires is required')
    assert.match(missing.stderr, /--expires/)

    const { events } = await cli.json<{ events: AuditEvent[] }>(['audit', 'list', '--account', accountId])
    assert.ok(!events.some((e) => e.action === 'key.expiry_changed'), 'no refusal is on record')
  },
)
